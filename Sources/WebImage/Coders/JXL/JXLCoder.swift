import CJXL
import Foundation

/// Decodes and encodes JPEG XL with libjxl: stills and animations, bare codestreams and
/// ISO BMFF containers.
///
/// Every frame is decoded (composited by libjxl onto the full canvas) unless
/// ``ImageCoderOptions/decodeFirstFrameOnly`` is set, with its duration and the file's loop
/// count. All frames together are checked against ``ImageCoderOptions/pixelLimit`` as they
/// arrive, from the size in the header. Orientation is read from the codestream (JPEG XL
/// stores EXIF's eight values) and applied, or not, like every other decoder's.
/// libjxl 0.7 decodes only at full size (its progressive preview is not a reduced decode),
/// so thumbnails are scaled after decoding.
///
/// Colour: lossy files (XYB inside) are decoded by libjxl straight to sRGB; HDR ones
/// (a PQ or HLG transfer, such as the corpus's TestHDR.jxl) are
/// first tone-mapped by libjxl to a 203-nit display, BT.2408's reference white for SDR.
/// Lossless files keep their own colour space, and their profile is converted to sRGB (or
/// kept) like any embedded profile; sRGB's primaries with a 1/2.2 gamma count as sRGB, as
/// they do for PNG. Grey images come out as equal RGB, converted through their grey curve
/// when it is not sRGB's.
/// Debian 12's libjxl 0.7 is built to print lines on standard error for each corrupt or
/// truncated file it refuses (`JXL_FAILURE` traces, and its API's own error lines, which
/// every build prints): an internal function writes them to C's `stderr` stream, with no
/// callback, setting or environment variable to turn it off, so a process decoding bad
/// JPEG XL input shows those lines beside the typed error. Silencing them would take
/// redirecting the whole process's standard error, not just one decode's.
///
/// With ``ImageCoderOptions/readsMetadata`` the container's `Exif` and `xml ` boxes become
/// ``Image/metadata``; encoding writes them, and the kept profile, as
/// ``ImageCoderOptions/MetadataPolicy`` says.
/// Thread-safe: every call uses its own libjxl decoder or encoder.
///
/// ```swift
/// let image = try JXLCoder().decode(jxlData, options: ImageCoderOptions())
/// let data = try JXLCoder().encode(image, as: .jpegXL, options: ImageCoderOptions())
/// ```
public struct JXLCoder: SingleFormatCoder {
    static let format = ImageFormat.jpegXL

    /// The peak luminance, in nits, that HDR sources are tone-mapped to: BT.2408's
    /// reference white, where SDR white sits in an HDR signal.
    static let displayNits: Float = 203

    /// Creates a coder.
    public init() {}

    /// Decodes every frame (or the first). Fails with ``WebImageError/badImageData(_:)`` for
    /// corrupt or truncated data and ``WebImageError/imageTooLarge(width:height:limit:)``
    /// when the frames need more pixels than the limit.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        try withCheckedBytes(of: data, unrecognised: "not a JPEG XL file") { raw -> Image in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                  let decoder = JxlDecoderCreate(nil) else { throw WebImageError.badImageData("libjxl could not start") }
            defer { JxlDecoderDestroy(decoder) }
            let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue
                | JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue | (options.readsMetadata ? JXL_DEC_BOX.rawValue : 0)
            guard JxlDecoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS,
                  // Brotli-compressed (`brob`) metadata boxes come out inflated.
                  !options.readsMetadata || JxlDecoderSetDecompressBoxes(decoder, 1) == JXL_DEC_SUCCESS,
                  // Pixels as stored: orientation is applied (or not) by the shared finisher.
                  JxlDecoderSetKeepOrientation(decoder, 1) == JXL_DEC_SUCCESS,
                  JxlDecoderSetUnpremultiplyAlpha(decoder, 1) == JXL_DEC_SUCCESS,
                  JxlDecoderSetInput(decoder, base, raw.count) == JXL_DEC_SUCCESS else {
                throw WebImageError.badImageData("libjxl refused its settings")
            }
            JxlDecoderCloseInput(decoder)
            var state = JXLDecodeState()
            try state.run(decoder, options: options)
            return try state.image(options: options)
        }
    }
}

extension JXLCoder {
    /// libjxl, as the loaded library reports itself (major × 1,000,000 + minor × 1000 + patch).
    static var linkedLibrary: LinkedLibrary {
        let version = JxlDecoderVersion()
        return LinkedLibrary(name: "libjxl", version: "\(version / 1_000_000).\(version / 1000 % 1000).\(version % 1000)")
    }
}
