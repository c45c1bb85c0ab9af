import CVector
import Foundation

/// Renders one page of a PDF document with poppler, as vectors at the size asked for.
///
/// The page is ``ImageCoderOptions/pageIndex`` (the first by default). It is drawn at
/// ``ImageCoderOptions/thumbnailPixelSize`` when one is given (scaled up as well as down,
/// as SDWebImage's PDF coder does), else at its size in points, one pixel a point (72 dpi),
/// after its `/Rotate`. Pages are painted onto white paper, as viewers show them, so the
/// image is opaque.
///
/// Only the requested page is read: poppler reads the cross-reference table and the
/// catalogue, then walks the page tree only as far as that page, so a document of a
/// thousand pages costs about what a one-page document does. The page's size is checked
/// against ``ImageCoderOptions/pixelLimit`` before anything is allocated (a page of
/// 200×200 inches is 14400×14400 pixels: refused by default, or rendered at a thumbnail's
/// size when one is asked for), and the input is capped at ``maxDataSize`` bytes.
/// Documents are never given a password: encrypted ones fail.
///
/// **Only for trusted documents.** poppler decodes every image a page draws at the
/// image's own full size, whatever size it is drawn at, and has no setting to bound it: a
/// 1.4 KB PDF drawing one 30000 × 30000 image took 3.5 GB to render a 10 × 10 page. So
/// this coder is not in ``CodersManager/builtInCoders`` (nothing a URL returns reaches it),
/// and the image server renders PDF sources only when told to (`WEBIMAGE_ALLOW_PDF`).
/// Add it yourself where the documents are yours:
/// `CodersManager.shared.addCoder(PDFCoder())`.
///
/// poppler-glib (with GLib and cairo) is opened with `dlopen` on the first decode, so a
/// process that never sees a PDF never loads it; without it installed, decoding fails with
/// ``WebImageError/unsupportedFormat(_:)``. Encoding is not offered.
/// Thread-safe: every decode opens its own poppler document.
///
/// ```swift
/// var options = ImageCoderOptions()
/// options.pageIndex = 2
/// options.thumbnailPixelSize = ImageSize(width: 300, height: 300)
/// let page3 = try PDFCoder().decode(pdfData, options: options)
/// ```
public struct PDFCoder: DecodeOnlyCoder {
    static let format = ImageFormat.pdf

    /// The largest document, in bytes, that is opened; larger ones fail with
    /// ``WebImageError/responseTooLarge(limit:)`` before poppler sees them. Default 128 MiB.
    public var maxDataSize: Int

    /// Creates a coder that opens documents of up to `maxDataSize` bytes.
    public init(maxDataSize: Int = 128 << 20) {
        self.maxDataSize = maxDataSize
    }

    /// With a ``ImageFormat/pdf`` hint, a document whose `%PDF-` header comes after other
    /// bytes within its first kilobyte, where PDF readers (poppler among them) look for it;
    /// ``ImageFormat/init(sniffing:)`` only recognises a header at the very start.
    public func canDecode(_ data: Data, hintedAs format: ImageFormat) -> Bool {
        format == .pdf && data.prefix(1024).firstRange(of: Data("%PDF-".utf8)) != nil
    }

    /// Renders the page. Fails with ``WebImageError/badImageData(_:)`` for a document
    /// poppler cannot open or a page it does not have,
    /// ``WebImageError/imageTooLarge(width:height:limit:)`` for a render size beyond the pixel
    /// limit, and ``WebImageError/unsupportedFormat(_:)`` when poppler-glib is not installed.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        guard data.count <= maxDataSize else { throw WebImageError.responseTooLarge(limit: maxDataSize) }
        return try withCheckedBytes(of: data) { raw -> Image in
            var message = [CChar](repeating: 0, count: 256)
            guard cvector_pdf_load_library(&message, message.count) == 0 else {
                throw WebImageError.unsupportedFormat(.pdf)
            }
            // The document reads `raw` in place; it is freed before `raw` goes away.
            guard let pdf = cvector_pdf_open(raw.baseAddress, raw.count, &message, message.count) else {
                throw WebImageError.badImageData("PDF unreadable: \(String(cBuffer: message))")
            }
            defer { cvector_pdf_free(pdf) }
            let pageCount = Int(cvector_pdf_page_count(pdf))
            guard (0..<pageCount).contains(options.pageIndex) else {
                throw WebImageError.badImageData("PDF has \(pageCount) pages, no page \(options.pageIndex)")
            }
            let page = Int32(options.pageIndex)
            var width = 0.0, height = 0.0
            guard cvector_pdf_page_size(pdf, page, &width, &height, &message, message.count) == 0 else {
                throw WebImageError.badImageData("PDF page unreadable: \(String(cBuffer: message))")
            }
            // poppler paints the page white itself.
            return try VectorGeometry.renderedImage(width: width, height: height, options: options, format: .pdf, hasAlpha: false) { pixels, size in
                let rendered = cvector_pdf_render(pdf, page, pixels, Int32(size.width), Int32(size.height), &message, message.count)
                guard rendered == 0 else {
                    throw WebImageError.badImageData("PDF page could not be rendered: \(String(cBuffer: message))")
                }
            }
        }
    }
}
