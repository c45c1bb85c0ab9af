import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// imgproxy's URL grammar taken apart without I/O: every option by name and alias, both
/// source forms, and each malformed input refused with a 400 (403 without a signature
/// segment) that names what is wrong.
@Suite struct ProcessingPathTests {
    static let source = "http://a.test/b.jpg"
    static let encodedSource = "http%3A%2F%2Fa.test%2Fb.jpg"

    /// Parses `/insecure/OPTIONS/plain/ENCODED-SOURCE`.
    static func parse(_ options: [String], ext: String? = nil) throws(ImageServerError) -> ProcessingPath {
        try ProcessingPath(parsing: "/insecure" + options.map { "/" + $0 }.joined() + "/plain/" + encodedSource + (ext.map { "@" + $0 } ?? ""))
    }

    /// The 400 that parsing `options` fails with.
    static func failure(_ options: [String], ext: String? = nil) -> ImageServerError? {
        do {
            _ = try parse(options, ext: ext)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Options

    struct OptionCase: Sendable, CustomTestStringConvertible {
        var segments: [String]
        var expected: @Sendable (inout ProcessingOptions) -> Void
        var testDescription: String { segments.joined(separator: "/") }

        init(_ segments: String..., expected: @escaping @Sendable (inout ProcessingOptions) -> Void) {
            self.segments = segments
            self.expected = expected
        }
    }

    static let optionCases: [OptionCase] = [
        OptionCase("resize:fill:300:200:1:1") { $0.resizingType = .fill; $0.width = 300; $0.height = 200; $0.enlarge = true; $0.extend = true },
        OptionCase("rs:fit:300") { $0.width = 300 },
        OptionCase("rs:fill-down::200") { $0.resizingType = .fillDown; $0.height = 200 },
        OptionCase("rs:") { _ in },
        OptionCase("rs:force:10:20:0:0") { $0.resizingType = .force; $0.width = 10; $0.height = 20 },
        // imgproxy reads the arguments after `extend` as the extend option's gravity.
        OptionCase("rs:fill:300:200:0:1:so:10:20") {
            $0.resizingType = .fill; $0.width = 300; $0.height = 200; $0.extend = true; $0.extendGravity = .anchor(.south, xOffset: 10, yOffset: 20)
        },
        OptionCase("s:300:200::1:noea") { $0.width = 300; $0.height = 200; $0.extend = true; $0.extendGravity = .anchor(.northEast, xOffset: 0, yOffset: 0) },
        OptionCase("ex:1:fp:0.5:0.25") { $0.extend = true; $0.extendGravity = .focusPoint(x: 0.5, y: 0.25) },
        OptionCase("size:300:200:t:f") { $0.width = 300; $0.height = 200; $0.enlarge = true },
        OptionCase("s:300") { $0.width = 300 },
        OptionCase("s::50") { $0.height = 50 },
        OptionCase("resizing_type:auto") { $0.resizingType = .auto },
        OptionCase("rt:fill-down") { $0.resizingType = .fillDown },
        OptionCase("rt:force") { $0.resizingType = .force },
        OptionCase("rt:fit") { $0.resizingType = .fit },
        OptionCase("width:120") { $0.width = 120 },
        OptionCase("w:0") { $0.width = 0 },
        OptionCase("height:90") { $0.height = 90 },
        OptionCase("h:1000000") { $0.height = 1_000_000 },
        OptionCase("enlarge:1") { $0.enlarge = true },
        OptionCase("el:true") { $0.enlarge = true },
        OptionCase("el:f") { $0.enlarge = false },
        // Go's strconv.ParseBool, as imgproxy reads booleans.
        OptionCase("el:True") { $0.enlarge = true },
        OptionCase("el:TRUE") { $0.enlarge = true },
        OptionCase("el:T") { $0.enlarge = true },
        OptionCase("sm:FALSE") { $0.stripMetadata = false },
        OptionCase("extend:1") { $0.extend = true },
        OptionCase("ex:t:noea") { $0.extend = true; $0.extendGravity = .anchor(.northEast, xOffset: 0, yOffset: 0) },
        OptionCase("ex:1:so:5:-7") { $0.extend = true; $0.extendGravity = .anchor(.south, xOffset: 5, yOffset: -7) },
        OptionCase("ex:0:we") { $0.extendGravity = .anchor(.west, xOffset: 0, yOffset: 0) },
        OptionCase("gravity:ce") { $0.gravity = .center },
        OptionCase("g:no") { $0.gravity = .anchor(.north, xOffset: 0, yOffset: 0) },
        // A later gravity without offsets keeps the earlier ones, as imgproxy's
        // parseGravity sets only the fields given.
        OptionCase("g:we:10:5", "g:ea") { $0.gravity = .anchor(.east, xOffset: 10, yOffset: 5) },
        OptionCase("g:we:10:5", "g:ea:3") { $0.gravity = .anchor(.east, xOffset: 3, yOffset: 5) },
        OptionCase("ex:1:so:4:6", "ex:1:no") { $0.extend = true; $0.extendGravity = .anchor(.north, xOffset: 4, yOffset: 6) },
        OptionCase("g:so") { $0.gravity = .anchor(.south, xOffset: 0, yOffset: 0) },
        OptionCase("g:ea") { $0.gravity = .anchor(.east, xOffset: 0, yOffset: 0) },
        OptionCase("g:we") { $0.gravity = .anchor(.west, xOffset: 0, yOffset: 0) },
        OptionCase("g:noea") { $0.gravity = .anchor(.northEast, xOffset: 0, yOffset: 0) },
        OptionCase("g:nowe") { $0.gravity = .anchor(.northWest, xOffset: 0, yOffset: 0) },
        OptionCase("g:soea") { $0.gravity = .anchor(.southEast, xOffset: 0, yOffset: 0) },
        OptionCase("g:sowe") { $0.gravity = .anchor(.southWest, xOffset: 0, yOffset: 0) },
        OptionCase("g:we:10:20") { $0.gravity = .anchor(.west, xOffset: 10, yOffset: 20) },
        OptionCase("g:ce:-3.5") { $0.gravity = .anchor(.center, xOffset: -3.5, yOffset: 0) },
        OptionCase("g:no::4") { $0.gravity = .anchor(.north, xOffset: 0, yOffset: 4) },
        OptionCase("g:fp:0.25:0.75") { $0.gravity = .focusPoint(x: 0.25, y: 0.75) },
        OptionCase("g:fp:0:1") { $0.gravity = .focusPoint(x: 0, y: 1) },
        OptionCase("quality:75") { $0.quality = 75 },
        OptionCase("q:1") { $0.quality = 1 },
        OptionCase("q:100") { $0.quality = 100 },
        OptionCase("q:0") { $0.quality = nil },
        OptionCase("format:webp") { $0.format = .webp },
        OptionCase("f:jpg") { $0.format = .jpeg },
        OptionCase("f:JPEG") { $0.format = .jpeg },
        OptionCase("ext:png") { $0.format = .png },
        OptionCase("f:avif") { $0.format = .avif },
        OptionCase("f:gif") { $0.format = .gif },
        OptionCase("f:tiff") { $0.format = .tiff },
        OptionCase("f:tif") { $0.format = .tiff },
        OptionCase("f:bmp") { $0.format = .bmp },
        OptionCase("f:heic") { $0.format = .heic },
        OptionCase("f:jxl") { $0.format = .jpegXL },
        OptionCase("format:") { $0.format = nil },
        OptionCase("background:255:128:0") { $0.background = RGBAColor(red: 255, green: 128, blue: 0) },
        OptionCase("bg:0:0:0") { $0.background = .black },
        OptionCase("bg:ff8000") { $0.background = RGBAColor(red: 255, green: 128, blue: 0) },
        OptionCase("bg:A0b0C0") { $0.background = RGBAColor(red: 0xA0, green: 0xB0, blue: 0xC0) },
        OptionCase("bg:f80") { $0.background = RGBAColor(red: 255, green: 0x88, blue: 0) },
        OptionCase("bg:") { $0.background = nil },
        OptionCase("blur:2.5") { $0.blur = 2.5 },
        OptionCase("bl:0") { $0.blur = 0 },
        OptionCase("rotate:90") { $0.rotate = 90 },
        OptionCase("rot:180") { $0.rotate = 180 },
        OptionCase("rot:-90") { $0.rotate = 270 },
        OptionCase("rot:720") { $0.rotate = 0 },
        OptionCase("rot:-450") { $0.rotate = 270 },
        OptionCase("dpr:2") { $0.dpr = 2 },
        OptionCase("dpr:1.5") { $0.dpr = 1.5 },
        OptionCase("cachebuster:v2") { $0.cacheBuster = "v2" },
        OptionCase("cb:abc") { $0.cacheBuster = "abc" },
        OptionCase("cb:") { $0.cacheBuster = "" },
        OptionCase("strip_metadata:1") { $0.stripMetadata = true },
        OptionCase("sm:true") { $0.stripMetadata = true },
        OptionCase("sm:0") { $0.stripMetadata = false },
        OptionCase("strip_metadata:false") { $0.stripMetadata = false },
        OptionCase("keep_copyright:0") { $0.keepCopyright = false },
        OptionCase("kcr:1") { $0.keepCopyright = true },
        OptionCase("strip_color_profile:0") { $0.stripColorProfile = false },
        OptionCase("scp:1") { $0.stripColorProfile = true },
        OptionCase("auto_rotate:0") { $0.autoRotate = false },
        OptionCase("ar:t") { $0.autoRotate = true },
        OptionCase("ar:false") { $0.autoRotate = false },
        OptionCase("page:3") { $0.page = 3 },
        OptionCase("pg:0") { $0.page = 0 },
        OptionCase("max_bytes:5000") { $0.maxBytes = 5_000 },
        OptionCase("mb:0") { $0.maxBytes = nil },
        // Later segments override earlier ones, as in imgproxy.
        OptionCase("w:10", "rs:fill:20") { $0.resizingType = .fill; $0.width = 20 },
        OptionCase("rs:fill:20:30", "h:5", "rt:fit") { $0.width = 20; $0.height = 5 },
    ]

    @Test(arguments: optionCases)
    func optionIsParsed(_ optionCase: OptionCase) throws {
        var expected = ProcessingOptions()
        optionCase.expected(&expected)
        let path = try Self.parse(optionCase.segments)
        #expect(path.options == expected)
        #expect(path.source.absoluteString == Self.source)
    }

    @Test func noOptionsGivesImgproxysDefaults() throws {
        let options = try Self.parse([]).options
        #expect(options == ProcessingOptions())
        #expect(options.resizingType == .fit)
        #expect(options.gravity == .center)
        #expect(options.autoRotate)
        #expect(!options.enlarge && !options.extend)
        #expect(options.format == nil && options.quality == nil && options.page == nil && options.maxBytes == nil)
    }

    @Test func dprScalesTheTargetBox() throws {
        let options = try Self.parse(["rs:fit:100:33", "dpr:1.5"]).options
        #expect(options.targetWidth == 150)
        #expect(options.targetHeight == 50)
        let unset = try Self.parse(["w:100", "dpr:3"]).options
        #expect(unset.targetWidth == 300)
        #expect(unset.targetHeight == 0)
        let tiny = try Self.parse(["w:1", "dpr:0.01"]).options
        #expect(tiny.targetWidth == 1)
    }

    // MARK: Refusals

    struct BadCase: Sendable, CustomTestStringConvertible {
        var segment: String
        /// Words the message must contain.
        var mentions: [String]
        var testDescription: String { segment }
    }

    static let badCases: [BadCase] = [
        BadCase(segment: "crop:10:10", mentions: ["crop"]),
        BadCase(segment: "watermark:1", mentions: ["watermark"]),
        BadCase(segment: "rs:fit:1:2:0:0:so:1:2:3", mentions: ["rs", "0 to 8", "9"]),
        BadCase(segment: "rs:stretch:10", mentions: ["stretch"]),
        BadCase(segment: "s:1:2:0:1:so:1:2:3", mentions: ["s", "0 to 7"]),
        BadCase(segment: "s:1:2:0:1:9", mentions: ["s", "gravity", "9"]),
        BadCase(segment: "resizing_type:", mentions: ["resizing type"]),
        BadCase(segment: "rt:fit:fill", mentions: ["rt", "1", "2"]),
        BadCase(segment: "w:abc", mentions: ["w", "abc"]),
        BadCase(segment: "width:-1", mentions: ["width", "-1"]),
        BadCase(segment: "h:1000001", mentions: ["h", "1000001"]),
        BadCase(segment: "height:", mentions: ["height"]),
        BadCase(segment: "w:", mentions: ["w"]),
        BadCase(segment: "el:yes", mentions: ["el", "yes", "boolean"]),
        BadCase(segment: "enlarge:1:1", mentions: ["enlarge"]),
        BadCase(segment: "ex:2", mentions: ["ex", "2"]),
        BadCase(segment: "ex:1:middle", mentions: ["middle"]),
        BadCase(segment: "ex:1:ce:1:2:3", mentions: ["ex", "1 to 4"]),
        BadCase(segment: "g:sm", mentions: ["sm", "not supported"]),
        BadCase(segment: "g:obj", mentions: ["obj", "not supported"]),
        BadCase(segment: "gravity:up", mentions: ["up"]),
        BadCase(segment: "g:fp:0.5", mentions: ["fp"]),
        BadCase(segment: "g:fp:2:0", mentions: ["g", "2"]),
        BadCase(segment: "g:we:x", mentions: ["g", "x"]),
        BadCase(segment: "g:", mentions: ["gravity"]),
        BadCase(segment: "q:101", mentions: ["q", "101"]),
        BadCase(segment: "quality:-5", mentions: ["quality", "-5"]),
        BadCase(segment: "q:high", mentions: ["q", "high"]),
        BadCase(segment: "f:svg", mentions: ["svg"]),
        BadCase(segment: "ext:svg", mentions: ["svg"]),
        BadCase(segment: "bg:256:0:0", mentions: ["bg", "256"]),
        BadCase(segment: "bg:1:2", mentions: ["bg", "R:G:B"]),
        BadCase(segment: "bg:ffff", mentions: ["bg", "hex"]),
        BadCase(segment: "bg:+ff", mentions: ["bg", "hex"]),
        BadCase(segment: "el:yes", mentions: ["el", "yes", "boolean"]),
        BadCase(segment: "background:gggggg", mentions: ["background"]),
        BadCase(segment: "bl:-1", mentions: ["bl", "-1"]),
        BadCase(segment: "blur:1001", mentions: ["blur", "1001"]),
        BadCase(segment: "bl:nan", mentions: ["bl", "nan"]),
        BadCase(segment: "rot:45", mentions: ["rotate", "90", "45"]),
        BadCase(segment: "rotate:x", mentions: ["rotate", "x"]),
        BadCase(segment: "dpr:0", mentions: ["dpr", "0"]),
        BadCase(segment: "dpr:9", mentions: ["dpr", "9"]),
        BadCase(segment: "dpr:inf", mentions: ["dpr", "inf"]),
        BadCase(segment: "cb:a:b", mentions: ["cb", "0 to 1"]),
        BadCase(segment: "sm:2", mentions: ["sm", "2"]),
        BadCase(segment: "scp:x", mentions: ["scp", "x"]),
        BadCase(segment: "ar:2", mentions: ["ar", "2"]),
        BadCase(segment: "pg:-1", mentions: ["pg", "-1"]),
        BadCase(segment: "page:x", mentions: ["page", "x"]),
        BadCase(segment: "mb:-1", mentions: ["mb", "-1"]),
        BadCase(segment: "max_bytes:lots", mentions: ["max_bytes", "lots"]),
    ]

    @Test(arguments: badCases)
    func malformedOptionIsA400NamingIt(_ badCase: BadCase) throws {
        let error = try #require(Self.failure([badCase.segment]))
        #expect(error.status == 400)
        #expect(error.label == "options")
        for word in badCase.mentions {
            #expect(error.message.contains(word), "\"\(error.message)\" should mention \(word)")
        }
        #expect(!error.message.contains("\n"))
    }

    /// `local:`, `file:` and `data:` sources parse (and are refused later by the fetcher
    /// unless the operator turned them on), in both grammars.
    @Test(arguments: ["local:///cats/1.jpg", "file:///cats/1.jpg", "data:image/png;base64,AAAA"])
    func localFileAndDataSourcesParse(_ source: String) throws {
        let encoded = try #require(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let plain = try ProcessingPath(parsing: "/insecure/w:10/plain/" + encoded)
        #expect(plain.source.absoluteString == source)
        let base64 = try ProcessingPath(parsing: "/insecure/w:10/" + URLSigner.base64URL(Array(source.utf8)))
        #expect(base64.source.absoluteString == source)
    }

    @Test func encryptedSourcesAreRefused() {
        let error = Self.failure(["enc", "AAAA"])
        #expect(error?.status == 400)
        #expect(error?.message.contains("enc/") == true)
    }

    @Test(arguments: ["ftp://a.test/b.jpg", "javascript:alert(1)", "gopher://a.test/", "/relative/b.jpg", "http://", "http:///b.jpg"])
    func sourceOfNoKnownSchemeIsA400(_ source: String) throws {
        let encoded = try #require(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        do {
            _ = try ProcessingPath(parsing: "/insecure/w:10/plain/" + encoded)
            Issue.record("\(source) was accepted")
        } catch {
            #expect(error.status == 400)
        }
        // The same in base64.
        let base64 = URLSigner.base64URL(Array(source.utf8))
        do {
            _ = try ProcessingPath(parsing: "/insecure/w:10/" + base64)
            Issue.record("\(source) in base64 was accepted")
        } catch {
            #expect(error.status == 400)
        }
    }

    @Test(arguments: [("", 400), ("/", 403), ("//w:10/plain/x", 403), ("insecure/plain/http%3A%2F%2Fa.test%2Fb.jpg", 400)])
    func malformedPathIsRefused(_ target: String, status: Int) {
        do {
            _ = try ProcessingPath(parsing: target)
            Issue.record("\(target) was accepted")
        } catch {
            #expect(error.status == status)
        }
    }

    /// What proxies and CDNs do to imgproxy URLs is undone before the signature is checked,
    /// as imgproxy's `RedenormalizePath` does: `%3A` in the options, and a plain source's
    /// `scheme://` merged to `scheme:/`.
    @Test func proxyChangesAreUndoneBeforeTheSignature() throws {
        let original = "/sig/rs:fit:300:200/q:80/plain/http://a.test/b.jpg@webp"
        // Written out, not computed by the function under test: what the signer signed.
        let expected = "/rs:fit:300:200/q:80/plain/http://a.test/b.jpg@webp"
        let parts = try ProcessingPath.signatureAndSignedPart(of: original)
        #expect(parts.signature == "sig")
        #expect(parts.signedPart == expected)
        for mangled in [
            "/sig/rs%3Afit%3A300%3A200/q%3a80/plain/http://a.test/b.jpg@webp",
            "/sig/rs:fit:300:200/q:80/plain/http:/a.test/b.jpg@webp",
            "/sig/rs%3Afit%3A300%3A200/q:80/plain/http:/a.test/b.jpg@webp?cache=no",
        ] {
            #expect(try ProcessingPath.signatureAndSignedPart(of: mangled).signedPart == expected, "\(mangled)")
            #expect(try ProcessingPath(parsing: mangled) == ProcessingPath(parsing: original), "\(mangled)")
        }
        #expect(try ProcessingPath(parsing: "/_/plain/local:/photos/a.png").source.absoluteString == "local:///photos/a.png")
        #expect(try ProcessingPath(parsing: "/_/plain/https:/a.test/x:/y.png").source.absoluteString == "https://a.test/x:/y.png")
        // Only a plain source is touched: a percent-encoded one is decoded as it is.
        #expect(try ProcessingPath(parsing: "/_/plain/http%3A%2F%2Fa.test%2Fb.png").source.absoluteString == "http://a.test/b.png")
    }

    /// A forgotten signature segment: imgproxy refuses a first segment that is an option,
    /// where taking it for the signature would serve the source unresized.
    @Test func anOptionWhereTheSignatureStandsIsA403() {
        #expect(throws: ImageServerError.badSignature("the first segment is a processing option, not a signature (unsigned URLs still have one, such as insecure)")) {
            try ProcessingPath(parsing: "/rs:fit:300:300/plain/http://a.test/b.png")
        }
        // Also with the colons a proxy encoded, which are restored in the options.
        #expect(throws: ImageServerError.self) { try ProcessingPath(parsing: "/rs%3Afit%3A300%3A300/plain/http://a.test/b.png") }
        #expect(throws: ImageServerError.self) { try ProcessingPath(parsing: "/rs%3afit/plain/http://a.test/b.png") }
    }

    @Test func signatureAndSignedPartSplitWithoutParsingTheRest() throws {
        let (signature, signedPart) = try ProcessingPath.signatureAndSignedPart(of: "/abc/nonsense:1/whatever")
        #expect(signature == "abc")
        #expect(signedPart == "/nonsense:1/whatever")
        #expect(throws: ImageServerError.badSignature("the URL has no signature segment")) { try ProcessingPath.signatureAndSignedPart(of: "/abc") }
        #expect(throws: ImageServerError.badOptions("the path must start with /")) { try ProcessingPath.signatureAndSignedPart(of: "abc/def") }
    }

    @Test func missingSignatureSegmentIsA403() {
        #expect(throws: ImageServerError.badSignature("the URL has no signature segment")) { try ProcessingPath(parsing: "/insecure") }
        #expect(throws: ImageServerError.badSignature("the URL has no signature segment")) { try ProcessingPath(parsing: "//plain/x") }
    }

    @Test func pathNamingNoSourceIsA400() {
        #expect(throws: ImageServerError.badOptions("the URL names no source")) { try ProcessingPath(parsing: "/insecure/w:10") }
        #expect(throws: ImageServerError.badOptions("the URL names no source")) { try ProcessingPath(parsing: "/insecure/") }
    }

    @Test func badBase64IsA400() {
        #expect(throws: ImageServerError.badOptions("the source is neither plain/ nor valid base64url")) {
            try ProcessingPath(parsing: "/insecure/w:10/!!!notbase64")
        }
    }

    @Test func badPercentEncodingIsA400() {
        #expect(throws: ImageServerError.badOptions("the plain source URL is not valid percent-encoding")) {
            try ProcessingPath(parsing: "/insecure/plain/http%3A%2F%2Fa.test%2F%ZZ")
        }
    }

    @Test func unsupportedExtensionIsA400NamingIt() {
        let plain = Self.failure([], ext: "svg")
        #expect(plain?.status == 400)
        #expect(plain?.message.contains("svg") == true)
        do {
            _ = try ProcessingPath(parsing: "/insecure/" + URLSigner.base64URL(Array(Self.source.utf8)) + ".pdf")
            Issue.record("pdf accepted")
        } catch {
            #expect(error.message.contains("pdf"))
        }
    }

    /// An empty extension names no format, as in imgproxy.
    @Test func anEmptyExtensionIsNoFormat() throws {
        #expect(try ProcessingPath(parsing: "/_/plain/http://a.test/b.png@").options.format == nil)
        #expect(try ProcessingPath(parsing: "/_/" + URLSigner.base64URL(Array(Self.source.utf8)) + ".").options.format == nil)
    }

    // MARK: Sources

    @Test func plainSourceIsPercentDecodedAndTakesTheExtensionAfterTheLastAt() throws {
        let path = try ProcessingPath(parsing: "/sig/w:10/plain/http%3A%2F%2Fuser%40a.test%2Fb.jpg@webp")
        #expect(path.source.absoluteString == "http://user@a.test/b.jpg")
        #expect(path.options.format == .webp)
        #expect(path.options.width == 10)
        #expect(path.signature == "sig")
        #expect(path.signedPart == "/w:10/plain/http%3A%2F%2Fuser%40a.test%2Fb.jpg@webp")
    }

    /// imgproxy cuts the query off the request before anything else: a source's own query
    /// must be percent-encoded, and a query a CDN or tracker appends (`?utm_source=…`)
    /// changes neither the source, nor the options, nor what the signature signs.
    @Test func anUnencodedQueryIsCutOffBeforeTheSignatureAndTheSource() throws {
        let path = try ProcessingPath(parsing: "/_/rs:fit:10:10/plain/http://a.test/dir/b.png@webp?size=large&v=2")
        #expect(path.source.absoluteString == "http://a.test/dir/b.png")
        #expect(path.options.format == .webp)
        #expect(path.signedPart == "/rs:fit:10:10/plain/http://a.test/dir/b.png@webp")
        let encoded = try ProcessingPath(parsing: "/_/plain/http://a.test/b.png%3Fsize%3Dlarge?utm=1")
        #expect(encoded.source.absoluteString == "http://a.test/b.png?size=large")
        let base64 = try ProcessingPath(parsing: "/_/w:5/" + URLSigner.base64URL(Array(Self.source.utf8)) + ".png?v=2")
        #expect(base64.signedPart == "/w:5/" + URLSigner.base64URL(Array(Self.source.utf8)) + ".png")
        let withExtension = try ProcessingPath(parsing: "/_/plain/http://a.test/b.png@png")
        #expect(withExtension.source.absoluteString == "http://a.test/b.png")
        #expect(withExtension.options.format == .png)
    }

    @Test func base64SourceMayBeSplitAnywhereAndPadded() throws {
        let url = "https://example.test/images/curiosity.jpg?x=1"
        let encoded = URLSigner.base64URL(Array(url.utf8))
        let split = encoded.enumerated().map { $0.offset > 0 && $0.offset % 7 == 0 ? "/\($0.element)" : "\($0.element)" }.joined()
        let path = try ProcessingPath(parsing: "/sig/rs:fill:10:10/" + split + ".png")
        #expect(path.source.absoluteString == url)
        #expect(path.options.format == .png)
        #expect(path.options.resizingType == .fill)
        let padded = Data(url.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let withPadding = try ProcessingPath(parsing: "/sig/" + padded)
        #expect(withPadding.source.absoluteString == url)
        #expect(withPadding.options.format == nil)
    }

    @Test func imgproxysPublishedExampleParsesUpToItsUnsupportedGravity() {
        // imgproxy's signing example uses g:sm (smart crop), which this server refuses.
        let target = "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(throws: ImageServerError.self) { try ProcessingPath(parsing: target) }
        let withoutSmart = target.replacingOccurrences(of: "/g:sm", with: "/g:ce")
        let path = try? ProcessingPath(parsing: withoutSmart)
        #expect(path?.source.absoluteString == "http://example.com/images/curiosity.jpg")
        #expect(path?.options.format == .png)
        #expect(path?.options.width == 300 && path?.options.height == 400)
        #expect(path?.signature == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
    }

    @Test func formatNamesMapToFormats() throws {
        let names: [(String, ImageFormat)] = [("jpg", .jpeg), ("jpeg", .jpeg), ("png", .png), ("webp", .webp), ("avif", .avif), ("gif", .gif), ("tif", .tiff), ("tiff", .tiff), ("bmp", .bmp), ("heic", .heic), ("WEBP", .webp)]
        for (name, format) in names {
            #expect(try ProcessingPath.format(named: Substring(name)) == format)
        }
    }
}
