import CVector
import Foundation

/// Renders SVG documents with librsvg, as vectors at the size asked for.
///
/// The document is drawn at ``ImageCoderOptions/thumbnailPixelSize`` when one is given
/// (scaled up as well as down, since vectors lose nothing: SDWebImage's SVG coder does the
/// same), else at its intrinsic size: its absolute `width` and `height` at 96 dpi, else its
/// `viewBox`, else 300×150 (what browsers give an `<img>` of an SVG without a size). The
/// result has straight alpha over a transparent background.
///
/// **Only for trusted documents**, and so not among ``CodersManager/builtInCoders``: librsvg
/// has no bound on what a document makes it allocate (an embedded image decoded at its full
/// size, a pattern's tile sized by its scale with no clip: a 366-byte document took 1.6 GB).
/// Add it where the documents are yours (``CodersManager/builtInCodersWithDocuments``). What
/// it does bound:
/// - nothing outside the bytes is read: librsvg gets no base file or URL, so it refuses
///   every `href` (images, `<use>`, XInclude, CSS `@import`) to a file or a URL; only `data:`
///   URLs embedded in the document load, and external XML entities are refused;
/// - an image embedded as a `data:` URL, which librsvg decodes at its full size, is measured
///   first, and the document refused when it would pass the pixel limit or cannot be
///   measured (`SVGEmbeddedContent`);
/// - the input is capped at ``maxDataSize`` bytes, libxml2's limits on huge documents stay
///   on (librsvg's `RSVG_HANDLE_FLAG_UNLIMITED` is never set), librsvg's own limits bound
///   elements and references, and the render size is checked against
///   ``ImageCoderOptions/pixelLimit`` before anything is allocated, so a 100000×100000 canvas
///   is refused (or rendered at a thumbnail's size when one is asked for);
/// - a render cannot be interrupted (librsvg 2.54 offers no cancellation), so its time is
///   bounded only by those limits: decode untrusted documents where a slow one cannot hold
///   up others, as the image server's bounded worker pool does.
///
/// librsvg (with GLib, cairo and pango) is opened with `dlopen` on the first decode, so a
/// process that never sees an SVG never loads it; without it installed, decoding fails with
/// ``WebImageError/unsupportedFormat(_:)``. Encoding is not offered.
/// Thread-safe: every decode parses its own librsvg handle.
///
/// ```swift
/// var options = ImageCoderOptions()
/// options.thumbnailPixelSize = ImageSize(width: 512, height: 512)
/// let image = try SVGCoder().decode(svgData, options: options)
/// ```
public struct SVGCoder: DecodeOnlyCoder {
    static let format = ImageFormat.svg

    /// The largest document, in bytes, that is parsed; larger ones fail with
    /// ``WebImageError/responseTooLarge(limit:)`` before librsvg sees them.
    /// Default 16 MiB, far above any icon or illustration.
    public var maxDataSize: Int

    /// Creates a coder that parses documents of up to `maxDataSize` bytes.
    public init(maxDataSize: Int = 16 << 20) {
        self.maxDataSize = maxDataSize
    }

    /// With an ``ImageFormat/svg`` hint, any text whose first character, after a UTF-8
    /// byte-order mark and white space, is `<`: an SVG that starts with a mark or a blank
    /// line, or whose `<svg` lies past the kilobytes ``ImageFormat/init(sniffing:)`` reads
    /// (a long licence comment or DOCTYPE), which sniffing does not recognise. librsvg
    /// judges the rest, as it does for any document.
    public func canDecode(_ data: Data, hintedAs format: ImageFormat) -> Bool {
        guard format == .svg else { return false }
        var rest = data.prefix(Self.leadingTextLimit)
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
    }

    /// How far ``canDecode(_:hintedAs:)`` looks for the first `<`.
    private static let leadingTextLimit = 4096

    /// Renders the document. Fails with ``WebImageError/badImageData(_:)`` for a document
    /// librsvg cannot parse or render, ``WebImageError/imageTooLarge(width:height:limit:)``
    /// for a render size beyond the pixel limit, and ``WebImageError/unsupportedFormat(_:)``
    /// when librsvg is not installed.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        guard data.count <= maxDataSize else { throw WebImageError.responseTooLarge(limit: maxDataSize) }
        // librsvg decodes an embedded image at its full size, whatever size it is drawn at.
        try SVGEmbeddedContent.check(data, pixelLimit: options.pixelLimit)
        return try withCheckedBytes(of: data) { raw -> Image in
            var message = [CChar](repeating: 0, count: 256)
            guard cvector_svg_load_library(&message, message.count) == 0 else {
                throw WebImageError.unsupportedFormat(.svg)
            }
            guard let svg = cvector_svg_open(raw.baseAddress, raw.count, &message, message.count) else {
                throw WebImageError.badImageData("SVG unreadable: \(String(cBuffer: message))")
            }
            defer { cvector_svg_free(svg) }
            var width = 0.0, height = 0.0
            if cvector_svg_intrinsic_size(svg, &width, &height) != 0 {
                (width, height) = (300, 150)
            }
            // cairo draws over what is there: the buffer starts transparent black.
            return try VectorGeometry.renderedImage(width: width, height: height, options: options, format: .svg, hasAlpha: true) { pixels, size in
                let rendered = cvector_svg_render(svg, width, height, pixels, Int32(size.width), Int32(size.height), &message, message.count)
                guard rendered == 0 else {
                    throw WebImageError.badImageData("SVG could not be rendered: \(String(cBuffer: message))")
                }
            }
        }
    }
}
