import Foundation
import WebImage

/// An imgproxy processing URL taken apart: the signature, the options, the source URL and
/// the requested extension.
///
/// imgproxy's two grammars, so URLs that imgproxy clients already build work unchanged:
///
/// - `/SIGNATURE/OPTIONS/plain/PERCENT-ENCODED-URL@EXT`
/// - `/SIGNATURE/OPTIONS/BASE64URL-URL.EXT` (the base64 may be split by `/` anywhere)
///
/// `OPTIONS` is zero or more `name:arg:arg` segments; the first segment without a `:`
/// starts the source. Parsing does no I/O and fails with a 400 (a 403 for the signature
/// segment's absence) naming what is wrong; an option the server does not support is
/// refused by name, never ignored.
///
/// ```swift
/// let path = try ProcessingPath(parsing: "/insecure/rs:fit:300:200/plain/http%3A%2F%2Fa.test%2Fb.jpg@webp")
/// path.options.width      // 300
/// path.source             // http://a.test/b.jpg
/// ```
public struct ProcessingPath: Sendable, Equatable {
    /// The first segment: the base64url signature, or whatever stands there unsigned
    /// (`insecure`, `_`, ...).
    public var signature: Substring
    /// Everything after the signature, leading `/` included: what the signature signs, and
    /// the cache key's base.
    public var signedPart: Substring
    /// The options, imgproxy's defaults where the URL gives none.
    public var options: ProcessingOptions
    /// The source image's URL.
    public var source: URL

    /// Parses a request target (path and query, still percent-encoded, as received; the
    /// query is ignored, as imgproxy ignores it).
    /// - Throws: ``ImageServerError`` 400 (or 403 without a signature segment).
    public init(parsing target: String) throws(ImageServerError) {
        (signature, signedPart) = try Self.signatureAndSignedPart(of: target)

        var segments = signedPart.dropFirst().split(separator: "/", omittingEmptySubsequences: false)[...]
        var options = ProcessingOptions()
        while let segment = segments.first, segment.contains(":") {
            try Self.apply(segment, to: &options)
            segments = segments.dropFirst()
        }
        guard let first = segments.first, !first.isEmpty || segments.count > 1 else {
            throw .badOptions("the URL names no source")
        }
        let (source, fileExtension): (String, Substring?)
        switch first {
        case "plain": (source, fileExtension) = try Self.plainSource(segments.dropFirst())
        case "enc": throw .badOptions("encrypted source URLs (enc/) are not supported")
        default: (source, fileExtension) = try Self.base64Source(segments)
        }
        // An empty extension (`…@` or `….`) names no format, as in imgproxy.
        if let fileExtension, !fileExtension.isEmpty {
            options.format = try Self.format(named: fileExtension)
        }
        guard let url = URL(string: source), Self.hasSourceScheme(url) else {
            throw .badOptions("the source is not an http(s), local, file or data URL: \(source.prefix(200))")
        }
        self.source = url
        self.options = options
    }

    /// The signature segment and the part it signs, the rest left unparsed: what a signed
    /// server checks before it reads any option, as imgproxy does
    /// (`SplitPathSignature`, `RedenormalizePath`).
    ///
    /// The part is read as imgproxy reads it, before the signature is checked, since the
    /// signer signed it unchanged:
    /// - the query is cut off: a `?` ends the path (a plain source's own query is
    ///   percent-encoded), so a query a CDN or a tracker appends changes nothing;
    /// - `%3A` in the options is `:` again (proxies that encode colons);
    /// - a plain source's `scheme:/host` is `scheme://host` again (proxies that merge
    ///   slashes; `local:/` becomes `local:///`).
    /// - Throws: ``ImageServerError`` 400 without a leading `/`; 403 without a signature
    ///   segment, or with an option where the signature should be (`/rs:fit:300:300/plain/…`:
    ///   taking it for the signature would serve the image unresized).
    package static func signatureAndSignedPart(of target: String) throws(ImageServerError) -> (signature: Substring, signedPart: Substring) {
        guard target.hasPrefix("/") else { throw .badOptions("the path must start with /") }
        let path = target.prefix { $0 != "?" }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/"), slash != afterSlash.startIndex else {
            throw .badSignature("the URL has no signature segment")
        }
        let signature = afterSlash[..<slash]
        // A colon a proxy encoded counts too: `%3A` is restored in the options below.
        guard !signature.contains(":"), signature.range(of: "%3a", options: .caseInsensitive) == nil else {
            throw .badSignature("the first segment is a processing option, not a signature (unsigned URLs still have one, such as insecure)")
        }
        return (signature, restoringProxyChanges(afterSlash[slash...]))
    }

    /// Undoes what proxies and CDNs do to imgproxy URLs (imgproxy's `RedenormalizePath`):
    /// `%3A` back to `:` in the options, `scheme:/` back to `scheme://` at the start of a
    /// plain source. Applying it twice changes nothing more. A part with nothing to restore
    /// (every request but a mangled one, a memory hit's path included) is returned as it is,
    /// with no copy.
    private static func restoringProxyChanges(_ signedPart: Substring) -> Substring {
        let options: Substring, plain: Substring?
        if signedPart.hasPrefix("/plain/") {
            (options, plain) = ("", signedPart.dropFirst("/plain/".count))
        } else if let marker = signedPart.range(of: "/plain/") {
            (options, plain) = (signedPart[..<marker.lowerBound], signedPart[marker.upperBound...])
        } else {
            (options, plain) = (signedPart, nil)
        }
        let encodesColons = options.range(of: "%3a", options: .caseInsensitive) != nil
        var source = plain ?? ""
        // `scheme:/x`, the scheme as RFC 3986 spells it, x not a slash.
        var mergedScheme = false
        if let colon = source.firstIndex(of: ":"), source[..<colon].first?.isLetter == true,
           source[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
           source[colon...].hasPrefix(":/"), !source[colon...].hasPrefix("://") {
            let scheme = source[..<colon]
            let rest = source[source.index(colon, offsetBy: 2)...]
            source = Substring(scheme + (scheme.lowercased() == "local" ? ":///" : "://") + rest)
            mergedScheme = true
        }
        guard encodesColons || mergedScheme else { return signedPart }
        let restoredOptions = encodesColons ? options.replacingOccurrences(of: "%3a", with: ":", options: .caseInsensitive) : String(options)
        guard plain != nil else { return Substring(restoredOptions) }
        return Substring(restoredOptions + "/plain/" + source)
    }

    // MARK: Sources

    /// Whether `url` has a scheme a source can have: http(s) with a host, or `local:`,
    /// `file:` and `data:`, which parse here and are refused later unless the operator
    /// turned them on (``GuardedSourceFetcher``), so that the 404 says which setting.
    static func hasSourceScheme(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "http", "https": url.host?.isEmpty == false
        case "local", "file", "data": true
        default: false
        }
    }

    /// `plain/URL@EXT`: the rest of the path, percent-decoded (a source's own query is
    /// percent-encoded there), the extension after the last `@`.
    private static func plainSource(_ segments: ArraySlice<Substring>) throws(ImageServerError) -> (String, Substring?) {
        var joined = segments.joined(separator: "/")[...]
        var fileExtension: Substring?
        if let at = joined.lastIndex(of: "@"), !joined[at...].contains("/") {
            fileExtension = joined[joined.index(after: at)...]
            joined = joined[..<at]
        }
        guard let decoded = joined.removingPercentEncoding, !decoded.isEmpty else {
            throw .badOptions("the plain source URL is not valid percent-encoding")
        }
        return (decoded, fileExtension)
    }

    /// `BASE64URL.EXT`: the segments joined, the extension after the last `.` (base64url
    /// has no dots), padding optional.
    private static func base64Source(_ segments: ArraySlice<Substring>) throws(ImageServerError) -> (String, Substring?) {
        var joined = Substring(segments.joined())
        var fileExtension: Substring?
        if let dot = joined.lastIndex(of: ".") {
            fileExtension = joined[joined.index(after: dot)...]
            joined = joined[..<dot]
        }
        var base64 = joined.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.hasSuffix("=") { base64.removeLast() }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let url = String(data: data, encoding: .utf8), !url.isEmpty else {
            throw .badOptions("the source is neither plain/ nor valid base64url")
        }
        return (url, fileExtension)
    }

    // MARK: Options

    /// Applies one `name:arg:...` segment. Aliases are imgproxy's.
    private static func apply(_ segment: Substring, to options: inout ProcessingOptions) throws(ImageServerError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        let name = parts[0]
        let args = Array(parts.dropFirst())
        switch name {
        case "resize", "rs":
            try expect(args, 0...8, name)
            if let type = args.first, !type.isEmpty { options.resizingType = try resizingType(type) }
            try applySize(Array(args.dropFirst()), to: &options, name)
        case "size", "s":
            try expect(args, 0...7, name)
            try applySize(args, to: &options, name)
        case "resizing_type", "rt":
            options.resizingType = try resizingType(single(args, name))
        case "width", "w":
            options.width = try dimension(single(args, name), name)
        case "height", "h":
            options.height = try dimension(single(args, name), name)
        case "enlarge", "el":
            options.enlarge = try bool(single(args, name), name)
        case "extend", "ex":
            try expect(args, 1...4, name)
            try applyExtend(args, to: &options, name)
        case "gravity", "g":
            try expect(args, 1...3, name)
            options.gravity = try gravity(args, name, after: options.gravity)
        case "quality", "q":
            let quality = try integer(single(args, name), name, in: 0...100)
            options.quality = quality == 0 ? nil : quality
        case "format", "f", "ext":
            let value = try single(args, name)
            options.format = value.isEmpty ? nil : try format(named: value)
        case "background", "bg":
            try expect(args, 1...3, name)
            // An empty value resets it: no background (imgproxy's `bg:`).
            options.background = args == [""] ? nil : try color(args, name)
        case "blur", "bl":
            options.blur = try number(single(args, name), name, in: 0...1_000)
        case "rotate", "rot":
            let degrees = try integer(single(args, name), name, in: -3600...3600)
            guard degrees % 90 == 0 else { throw .badOptions("rotate takes a multiple of 90, not \(degrees)") }
            options.rotate = ((degrees % 360) + 360) % 360
        case "dpr":
            options.dpr = try number(single(args, name), name, in: 0.01...8)
        case "cachebuster", "cb":
            try expect(args, 0...1, name)
            options.cacheBuster = String(args.first ?? "")
        case "strip_metadata", "sm":
            options.stripMetadata = try bool(single(args, name), name)
        case "keep_copyright", "kcr":
            options.keepCopyright = try bool(single(args, name), name)
        case "strip_color_profile", "scp":
            options.stripColorProfile = try bool(single(args, name), name)
        case "auto_rotate", "ar":
            options.autoRotate = try bool(single(args, name), name)
        case "page", "pg":
            options.page = try integer(single(args, name), name, in: 0...1_000_000)
        case "max_bytes", "mb":
            let limit = try integer(single(args, name), name, in: 0...Int(Int32.max))
            options.maxBytes = limit == 0 ? nil : limit
        default:
            throw .badOptions("unsupported option \"\(name)\"")
        }
    }

    /// The `WIDTH:HEIGHT:ENLARGE:EXTEND:GRAVITY…` tail shared by `resize` and `size`, the
    /// extend part read as the `extend` option reads it (imgproxy's `applySizeOption`);
    /// empty arguments leave the value as it is.
    private static func applySize(_ args: [Substring], to options: inout ProcessingOptions, _ name: Substring) throws(ImageServerError) {
        if args.count > 0, !args[0].isEmpty { options.width = try dimension(args[0], name) }
        if args.count > 1, !args[1].isEmpty { options.height = try dimension(args[1], name) }
        if args.count > 2, !args[2].isEmpty { options.enlarge = try bool(args[2], name) }
        if args.count > 3, !args[3].isEmpty { try applyExtend(Array(args[3...]), to: &options, name) }
    }

    /// `EXTEND:GRAVITY_TYPE:X:Y`: whether to extend, and where the image sits on the
    /// canvas (a focus point too, as imgproxy's `ExtendGravityTypes` allow).
    private static func applyExtend(_ args: [Substring], to options: inout ProcessingOptions, _ name: Substring) throws(ImageServerError) {
        options.extend = try bool(args[0], name)
        if args.count > 1 { options.extendGravity = try gravity(Array(args.dropFirst()), name, after: options.extendGravity) }
    }

    /// The one argument of an option that takes exactly one.
    private static func single(_ args: [Substring], _ name: Substring) throws(ImageServerError) -> Substring {
        try expect(args, 1...1, name)
        return args[0]
    }

    private static func expect(_ args: [Substring], _ counts: ClosedRange<Int>, _ name: Substring) throws(ImageServerError) {
        guard counts.contains(args.count) else {
            throw .badOptions("option \"\(name)\" takes \(counts.lowerBound == counts.upperBound ? "\(counts.lowerBound)" : "\(counts.lowerBound) to \(counts.upperBound)") arguments, not \(args.count)")
        }
    }

    private static func resizingType(_ value: Substring) throws(ImageServerError) -> ProcessingOptions.ResizingType {
        guard let type = ProcessingOptions.ResizingType(rawValue: String(value)) else {
            throw .badOptions("unknown resizing type \"\(value)\"")
        }
        return type
    }

    private static func dimension(_ value: Substring, _ name: Substring) throws(ImageServerError) -> Int {
        try integer(value, name, in: 0...1_000_000)
    }

    private static func integer(_ value: Substring, _ name: Substring, in range: ClosedRange<Int>) throws(ImageServerError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw .badOptions("option \"\(name)\": \"\(value.prefix(40))\" is not an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    private static func number(_ value: Substring, _ name: Substring, in range: ClosedRange<Double>) throws(ImageServerError) -> Double {
        guard let number = Double(value), number.isFinite, range.contains(number) else {
            throw .badOptions("option \"\(name)\": \"\(value.prefix(40))\" is not a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// imgproxy's booleans, Go's `strconv.ParseBool`: `1`, `t`, `true` and `0`, `f`, `false`,
    /// the words also capitalised or in capitals. imgproxy takes any other value as false
    /// (and logs it); here it is a 400 that names it, as every option we cannot read is.
    private static func bool(_ value: Substring, _ name: Substring) throws(ImageServerError) -> Bool {
        switch value {
        case "1", "t", "T", "true", "True", "TRUE": return true
        case "0", "f", "F", "false", "False", "FALSE": return false
        default: throw .badOptions("option \"\(name)\": \"\(value.prefix(40))\" is not a boolean (1/t/true or 0/f/false)")
        }
    }

    /// A gravity from its arguments. An offset left out keeps the value `previous` had (a
    /// focus point's coordinates count), as imgproxy's `parseGravity` sets only the fields
    /// given: `g:we:10/g:ea` is east, 10 pixels in, there.
    private static func gravity(
        _ args: [Substring], _ name: Substring, after previous: ProcessingOptions.Gravity
    ) throws(ImageServerError) -> ProcessingOptions.Gravity {
        let (previousX, previousY): (Double, Double) = switch previous {
        case let .anchor(_, x, y): (x, y)
        case let .focusPoint(x, y): (x, y)
        }
        if args[0] == "fp" {
            guard args.count == 3 else { throw .badOptions("gravity fp takes x and y") }
            return .focusPoint(x: try number(args[1], name, in: 0...1), y: try number(args[2], name, in: 0...1))
        }
        guard let anchor = ProcessingOptions.Anchor(rawValue: String(args[0])) else {
            if args[0] == "sm" || args[0] == "obj" {
                throw .badOptions("gravity \"\(args[0])\" is not supported (no saliency or object detection)")
            }
            throw .badOptions("option \"\(name)\": unknown gravity \"\(args[0].prefix(40))\"")
        }
        let x = args.count > 1 && !args[1].isEmpty ? try number(args[1], name, in: -100_000...100_000) : previousX
        let y = args.count > 2 && !args[2].isEmpty ? try number(args[2], name, in: -100_000...100_000) : previousY
        return .anchor(anchor, xOffset: x, yOffset: y)
    }

    /// `R:G:B` in decimal, or `RRGGBB` or `RGB` in hex (imgproxy's forms).
    private static func color(_ args: [Substring], _ name: Substring) throws(ImageServerError) -> RGBAColor {
        if args.count == 3 {
            return RGBAColor(
                red: UInt8(try integer(args[0], name, in: 0...255)),
                green: UInt8(try integer(args[1], name, in: 0...255)),
                blue: UInt8(try integer(args[2], name, in: 0...255))
            )
        }
        let hex = args.count == 1 ? args[0] : ""
        guard hex.count == 6 || hex.count == 3, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else {
            throw .badOptions("option \"\(name)\" takes R:G:B or a hex RRGGBB or RGB colour")
        }
        if hex.count == 3 {
            // Each digit doubled, as in CSS: `f80` is `ff8800`.
            return RGBAColor(red: UInt8(value >> 8 & 0xF) * 17, green: UInt8(value >> 4 & 0xF) * 17, blue: UInt8(value & 0xF) * 17)
        }
        return RGBAColor(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// An extension or `format` value: imgproxy's names (`jpg`, `jpeg`, `png`, `webp`,
    /// `avif`, `gif`, `tiff`, `bmp`, `heic`, `jxl`).
    static func format(named name: Substring) throws(ImageServerError) -> ImageFormat {
        switch name.lowercased() {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        case "webp": return .webp
        case "avif": return .avif
        case "gif": return .gif
        case "tif", "tiff": return .tiff
        case "bmp": return .bmp
        case "heic": return .heic
        case "jxl": return .jpegXL
        default: throw .badOptions("unsupported output format \"\(name.prefix(40))\"")
        }
    }
}
