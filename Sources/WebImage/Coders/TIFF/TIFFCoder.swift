import CTIFF
import Foundation

/// Decodes TIFF images with libtiff: the first page, in any layout libtiff's RGBA reader
/// handles (RGB, greyscale, palette, CMYK, YCbCr, CIELab, 1–16 bits, any compression it
/// was built with, strips or tiles). 16-bit samples are rounded to 8 bits, and 8-bit CIELab
/// and CMYK (through the file's CMYK profile when it has one) are converted by the coder,
/// where libtiff's own reader would be less exact.
///
/// The bytes are read in place through `TIFFClientOpenExt` callbacks, never copied to a
/// file. Pixels come out as stored and are turned by the Orientation tag (values 1–8, the
/// same as EXIF's) like every other decoder's, because libtiff's own orientation handling
/// only flips and cannot transpose (5–8). Alpha is delivered straight: libtiff premultiplies
/// unassociated alpha, so the coder tells it the alpha is associated (the values then pass
/// through untouched) and unpremultiplies only data that really is associated.
/// Multi-page files decode to their first page. ``ImageCoderOptions/readsMetadata`` keeps
/// the XMP packet and the EXIF (gathered into a block, `TIFFEXIFBlock`). Encoding is not
/// offered.
/// Thread-safe: every call opens its own libtiff handle.
///
/// ```swift
/// let image = try TIFFCoder().decode(tiffData, options: ImageCoderOptions())
/// ```
public struct TIFFCoder: DecodeOnlyCoder {
    static let format = ImageFormat.tiff

    /// Creates a coder.
    public init() {}

    /// Decodes the first page. Its size is checked against `pixelLimit` before anything is
    /// allocated for its pixels; a strip or tile libtiff cannot read fails the whole decode.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty TIFF data") }
        _ = TIFFCoder.silenceProcessWideHandlers
        return try data.withUnsafeBytes { raw -> Image in
            let stream = TIFFMemoryStream(bytes: raw)
            return try withExtendedLifetime(stream) {
                // A strip of 16-bit RGBA covering the whole image is the largest buffer
                // libtiff needs for an image within the pixel limit. The floor is a byte
                // under 64 MiB, the allocation Fuzz/run.sh reports: libtiff refuses only
                // sizes past its cap, and one of exactly 64 MiB was let through, then reported.
                let maxAllocation = max((64 << 20) - 1, min(Int.max / 8, options.pixelLimit) * 8)
                guard let tiff = stream.open(maxAllocation: maxAllocation) else {
                    throw WebImageError.badImageData("TIFF header unreadable: \(stream.firstError ?? "not a TIFF")")
                }
                defer { TIFFClose(tiff) }
                return try decode(tiff, stream: stream, options: options)
            }
        }
    }

    /// libtiff reports some problems (before a handle exists, or from old code paths) to
    /// process-wide handlers that print to stderr; a server library must not. Done once,
    /// thread-safely, by Swift's lazy static initialisation. Per-handle handlers collect the
    /// rest.
    private static let silenceProcessWideHandlers: Void = {
        TIFFSetErrorHandler(nil)
        TIFFSetWarningHandler(nil)
    }()

    private func decode(_ tiff: OpaquePointer, stream: TIFFMemoryStream, options: ImageCoderOptions) throws -> Image {
        var width: UInt32 = 0, height: UInt32 = 0
        guard TIFFCoder.field(tiff, UInt32(TIFFTAG_IMAGEWIDTH), &width),
              TIFFCoder.field(tiff, UInt32(TIFFTAG_IMAGELENGTH), &height) else {
            throw WebImageError.badImageData("TIFF has no image size")
        }
        try DecodeGeometry.checkPixelLimit(width: Int(width), height: Int(height), options: options)
        // A tile may overhang its image, but one larger than both 16 MiB and the image's own
        // pixels at 8 bytes each (16-bit RGBA) is no encoder's choice, only a cheap way to
        // ask for a huge buffer: both readers allocate a whole tile, and libtiff decodes
        // into all of it, whatever the image's size (a 16 × 16 image with 16,000-pixel tiles
        // cost 768 MB, inside the allocation cap, which depends on the limit alone).
        if TIFFIsTiled(tiff) != 0 {
            let tileBytes = TIFFTileSize64(tiff)
            let allowed = max(16 << 20, Int(width) * Int(height) * 8)
            guard tileBytes <= UInt64(allowed) else {
                throw WebImageError.badImageData("TIFF tile of \(tileBytes) bytes is larger than the limit allows for a \(width)×\(height) image")
            }
        }
        // Read before the pixels: passing colour through rewrites the directory's Photometric.
        let profile = TIFFCoder.iccProfile(tiff)
        let (pixels, orientation, hasAlpha): (PixelBuffer, ImageOrientation, Bool)
        if let layout = TIFFCoder.SixteenBitLayout(tiff) {
            // 16-bit samples rounded to 8 bits here; libtiff's RGBA reader would keep only
            // their high bytes.
            pixels = try TIFFCoder.readSixteenBit(tiff, layout: layout, width: Int(width), height: Int(height), stream: stream)
            var stored = UInt16(ORIENTATION_TOPLEFT)
            _ = TIFFCoder.field(tiff, UInt32(TIFFTAG_ORIENTATION), &stored)
            orientation = ImageOrientation(exifValue: Int(stored))
            hasAlpha = layout.alpha != nil
        } else {
            (pixels, orientation, hasAlpha) = try TIFFCoder.readThroughRGBAImage(tiff, width: width, height: height, stream: stream, options: options)
        }

        let source = ImageSize(width: Int(width), height: Int(height))
        let target = DecodeGeometry.targetSize(sourceSize: source, orientation: orientation, frameCount: 1, options: options)
        // Converted after the resize, so a thumbnail converts only its own pixels.
        var finished = DecodeGeometry.finish(pixels, orientation: orientation, target: target, options: options)
        let kept = ColorConversion.apply(profile, to: &finished, options: options)
        let upright = (options.applyOrientation ? orientation : .up).orientedSize(source)
        return Image(
            frames: [ImageFrame(pixels: finished)],
            format: .tiff,
            scale: options.scaleFactor,
            loopCount: 1,
            orientation: orientation,
            hasAlpha: hasAlpha,
            isThumbnail: target.pixelCount < upright.pixelCount,
            colorProfile: kept,
            metadata: options.readsMetadata
                ? TIFFCoder.metadata(tiff, file: stream.bytes, turned: options.applyOrientation && orientation != .up, options: options)
                : ImageMetadata()
        )
    }

    /// Every other layout, through libtiff's RGBA reader (8-bit RGBA whatever the source:
    /// palette, 1 to 8 bits, CMYK, YCbCr, tiles, planes), in stored row order.
    private static func readThroughRGBAImage(
        _ tiff: OpaquePointer,
        width: UInt32,
        height: UInt32,
        stream: TIFFMemoryStream,
        options: ImageCoderOptions
    ) throws -> (PixelBuffer, ImageOrientation, Bool) {
        // First, while ExtraSamples still says what the file says.
        let passedThrough = try TIFFCoder.passColourThrough(tiff)
        let pretendedAssociated = try TIFFCoder.markUnassociatedAlphaAsAssociated(tiff)

        var message = [CChar](repeating: 0, count: 1024)
        guard TIFFRGBAImageOK(tiff, &message) == 1 else {
            throw WebImageError.badImageData("TIFF layout not supported: \(String(cBuffer: message))")
        }
        var reader = TIFFRGBAImage()
        guard TIFFRGBAImageBegin(&reader, tiff, 1, &message) == 1 else {
            throw WebImageError.badImageData("TIFF layout not supported: \(String(cBuffer: message))")
        }
        defer { TIFFRGBAImageEnd(&reader) }
        guard reader.width == width, reader.height == height else {
            throw WebImageError.badImageData("TIFF size changed while reading")
        }
        // Asking for the file's own orientation makes libtiff copy rows in stored order.
        reader.req_orientation = reader.orientation
        let orientation = ImageOrientation(exifValue: Int(reader.orientation))
        let hasAlpha = reader.alpha != 0 && passedThrough != .cmyk

        var pixels = try PixelBuffer(uninitializedWidth: Int(width), height: Int(height)) { buffer in
            // Zeroed first so a reader that skips a region can never expose old memory.
            buffer.initialize(repeating: 0)
            let ok = buffer.withMemoryRebound(to: UInt32.self) { raster in
                TIFFRGBAImageGet(&reader, raster.baseAddress, width, height)
            }
            guard ok == 1 else {
                throw WebImageError.badImageData("TIFF pixel data unreadable: \(stream.firstError ?? "libtiff failed")")
            }
            #if _endian(big)
            // libtiff packs A<<24|B<<16|G<<8|R; on a big-endian machine that is ABGR in memory.
            buffer.withMemoryRebound(to: UInt32.self) { raster in
                for i in raster.indices { raster[i] = raster[i].byteSwapped }
            }
            #endif
        }
        if hasAlpha && !pretendedAssociated && reader.alpha == Int32(EXTRASAMPLE_ASSOCALPHA) {
            pixels.unpremultiplyAlpha()
        }
        if let passedThrough { try convert(&pixels, from: passedThrough, profile: storedProfile(tiff), options: options) }
        return (pixels, orientation, hasAlpha)
    }

    /// The EXIF (IFD0's descriptive tags and the EXIF and GPS sub-directories, gathered
    /// into a block by ``TIFFEXIFBlock``) and the XMP packet (tag 700), for
    /// ``ImageCoderOptions/readsMetadata``; orientations reset to 1 when the decode applied
    /// the orientation: EXIF's of whatever integer type libtiff read it from, and XMP's only
    /// when the pixels were `turned` (libtiff reads no XMP: an XMP orientation beside an
    /// upright TIFF was never applied, and set to 1 it would be lost).
    private static func metadata(_ tiff: OpaquePointer, file: UnsafeRawBufferPointer, turned: Bool, options: ImageCoderOptions) -> ImageMetadata {
        let xmp = bytesField(tiff, UInt32(TIFFTAG_XMLPACKET))
        let exif = TIFFEXIFBlock.make(fromFile: file)
        return (exif ?? []).withUnsafeBytes { bytes in
            ImageMetadata.read(
                exif: exif == nil ? nil : bytes, xmp: xmp, resetOrientation: options.applyOrientation,
                exifOrientationOfAnyIntegerType: true, resetsXMPOrientation: turned)
        }
    }

    /// A counted byte tag (ICC profile, XMP) through libtiff's `va_list` getter; the bytes
    /// are libtiff's, valid while the handle is open.
    private static func bytesField(_ tiff: OpaquePointer, _ tag: UInt32) -> UnsafeRawBufferPointer? {
        var count: UInt32 = 0
        var bytes: UnsafeMutableRawPointer?
        let found = withUnsafeMutablePointer(to: &count) { countPointer in
            withUnsafeMutablePointer(to: &bytes) { bytesPointer in
                withVaList([countPointer, bytesPointer]) { TIFFVGetField(tiff, tag, $0) }
            }
        }
        guard found == 1, count > 0, let bytes else { return nil }
        return UnsafeRawBufferPointer(start: bytes, count: Int(count))
    }

    /// The ICC profile of the directory (tag 34675) for RGB or grey pixels, if it holds a
    /// usable one. CMYK (separated) and CIELab pixels were converted to sRGB while reading
    /// (see `TIFFCoder+PassedThroughColour.swift`): no stored profile describes them any
    /// more, and applying an RGB or grey one there converted them a second time. Read it
    /// before the pixels: ``passColourThrough(_:)`` tells the directory they are RGB.
    private static func iccProfile(_ tiff: OpaquePointer) -> ColorProfile? {
        var photometric = UInt16(PHOTOMETRIC_RGB)
        _ = field(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometric)
        let converted: Set<Int32> = [PHOTOMETRIC_SEPARATED, PHOTOMETRIC_CIELAB, PHOTOMETRIC_ICCLAB, PHOTOMETRIC_ITULAB]
        guard !converted.contains(Int32(photometric)), let profile = storedProfile(tiff), profile.colorSpace != .cmyk else { return nil }
        return profile
    }

    /// The directory's ICC profile whatever its colour space, if it holds a usable one.
    static func storedProfile(_ tiff: OpaquePointer) -> ColorProfile? {
        bytesField(tiff, UInt32(TIFFTAG_ICCPROFILE)).flatMap(ColorConversion.profile(iccBytes:))
    }

    /// Rewrites an ExtraSamples value of "unassociated alpha" to "associated" in libtiff's
    /// in-memory directory (the file is untouched), so its RGBA reader passes alpha and
    /// colour through instead of premultiplying them, which would lose precision at low
    /// alpha. Returns whether it did.
    private static func markUnassociatedAlphaAsAssociated(_ tiff: OpaquePointer) throws -> Bool {
        guard let values = extraSamples(tiff), values[0] == UInt16(EXTRASAMPLE_UNASSALPHA) else { return false }
        var rewritten = Array(values)
        rewritten[0] = UInt16(EXTRASAMPLE_ASSOCALPHA)
        try setExtraSamples(tiff, rewritten)
        return true
    }

    /// Replaces the ExtraSamples values in libtiff's in-memory directory.
    static func setExtraSamples(_ tiff: OpaquePointer, _ values: [UInt16]) throws {
        var values = values
        let set = values.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return withVaList([Int32(buffer.count), base]) { TIFFVSetField(tiff, UInt32(TIFFTAG_EXTRASAMPLES), $0) }
        }
        guard set == 1 else { throw WebImageError.badImageData("TIFF ExtraSamples could not be read") }
    }

    /// The directory's ExtraSamples values (what each sample after the colour ones is),
    /// `nil` when it has none; libtiff's memory, valid while the handle is open.
    static func extraSamples(_ tiff: OpaquePointer) -> UnsafeBufferPointer<UInt16>? {
        var count: UInt16 = 0
        var values: UnsafeMutablePointer<UInt16>?
        let found = withUnsafeMutablePointer(to: &count) { countPointer in
            withUnsafeMutablePointer(to: &values) { valuesPointer in
                withVaList([countPointer, valuesPointer]) { TIFFVGetField(tiff, UInt32(TIFFTAG_EXTRASAMPLES), $0) }
            }
        }
        guard found == 1, count > 0, let values else { return nil }
        return UnsafeBufferPointer(start: values, count: Int(count))
    }

    /// Reads one scalar tag through libtiff's `va_list` getter (Swift cannot call the
    /// variadic `TIFFGetField`).
    static func field<T>(_ tiff: OpaquePointer, _ tag: UInt32, _ value: inout T) -> Bool {
        withUnsafeMutablePointer(to: &value) { pointer in
            withVaList([pointer]) { TIFFVGetField(tiff, tag, $0) }
        } == 1
    }
}

extension TIFFCoder {
    /// libtiff, from the first line of its banner ("LIBTIFF, Version 4.5.0").
    static var linkedLibrary: LinkedLibrary {
        let banner = String(cString: TIFFGetVersion())
        let firstLine = banner.split(separator: "\n").first.map(String.init) ?? banner
        let version = firstLine.components(separatedBy: "Version ").last ?? firstLine
        return LinkedLibrary(name: "libtiff", version: version.trimmingCharacters(in: .whitespaces))
    }
}
