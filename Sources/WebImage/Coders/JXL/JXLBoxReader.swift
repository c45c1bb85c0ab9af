import CJXL
import Foundation

/// The EXIF and XMP of a JPEG XL container (its `Exif` and `xml ` boxes, Brotli-compressed
/// `brob` ones too), gathered as libjxl's box events arrive, for a decode that asked for
/// metadata (``ImageCoderOptions/readsMetadata``).
///
/// A box grows its buffer as libjxl asks, up to ``ImageMetadata/maximumBlockSize`` (plus
/// the EXIF box's 4-byte offset); a larger one is skipped, as every decoder skips an
/// over-long block, so an untrusted file cannot make it allocate without bound. Used by one
/// decode on one thread; ``discard()`` frees what is still held when the decode ends early.
struct JXLBoxReader {
    /// The `Exif` box's contents (the offset of its TIFF header, then EXIF).
    private(set) var exif: Data?
    /// The `xml ` box's contents (an XMP packet).
    private(set) var xmp: Data?
    /// The box being read: its type and the buffer libjxl writes into.
    private var current: (type: String, buffer: UnsafeMutableRawBufferPointer)?

    private static let limit = ImageMetadata.maximumBlockSize + 4

    /// At a `JXL_DEC_BOX` event: keeps the box just finished, then starts reading the new
    /// one if it is EXIF or XMP.
    mutating func start(_ decoder: OpaquePointer) {
        finish(decoder)
        var type: JxlBoxType = (0, 0, 0, 0)
        guard JxlDecoderGetBoxType(decoder, &type, 1) == JXL_DEC_SUCCESS else { return }
        let name = String(decoding: withUnsafeBytes(of: type) { Array($0) }, as: UTF8.self)
        guard name == "Exif" || name == "xml " else { return }
        var raw: UInt64 = 0
        _ = JxlDecoderGetBoxSizeRaw(decoder, &raw)
        // The raw size includes the box header, and a compressed box grows when inflated.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(min(max(raw, 4096), UInt64(Self.limit))), alignment: 1)
        read(name, into: buffer, from: 0, decoder)
    }

    /// At `JXL_DEC_BOX_NEED_MORE_OUTPUT`: doubles the buffer, or gives the box up once it
    /// would pass the limit.
    mutating func grow(_ decoder: OpaquePointer) {
        guard let (type, buffer) = current else { return }
        let written = buffer.count - JxlDecoderReleaseBoxBuffer(decoder)
        current = nil
        guard buffer.count < Self.limit else {
            buffer.deallocate()
            return
        }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(buffer.count * 2, Self.limit), alignment: 1)
        larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[..<written]))
        buffer.deallocate()
        read(type, into: larger, from: written, decoder)
    }

    /// Hands libjxl `buffer` past its first `written` bytes for box `type`'s contents, and
    /// makes it the current box; frees it instead if libjxl refuses it.
    private mutating func read(_ type: String, into buffer: UnsafeMutableRawBufferPointer, from written: Int, _ decoder: OpaquePointer) {
        guard let base = buffer.baseAddress,
              JxlDecoderSetBoxBuffer(decoder, base.assumingMemoryBound(to: UInt8.self) + written, buffer.count - written) == JXL_DEC_SUCCESS
        else {
            buffer.deallocate()
            return
        }
        current = (type, buffer)
    }

    /// At the next box or the end of the file: keeps the box read so far, if any.
    mutating func finish(_ decoder: OpaquePointer) {
        guard let (type, buffer) = current else { return }
        let written = buffer.count - JxlDecoderReleaseBoxBuffer(decoder)
        let contents = Data(buffer[..<written])
        buffer.deallocate()
        current = nil
        if type == "Exif" { exif = exif ?? contents } else { xmp = xmp ?? contents }
    }

    /// Frees the buffer of a box still being read (a decode that stopped early or failed).
    mutating func discard() {
        current?.buffer.deallocate()
        current = nil
    }

    /// What was read, as ``ImageMetadata`` keeps it: EXIF from its TIFF header on (the box
    /// starts with that header's offset), the orientation reset when the decode applies it.
    func metadata(resetOrientation: Bool) -> ImageMetadata {
        var tiff: Data?
        if let exif, exif.count >= 4 {
            let offset = exif.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            if offset <= exif.count - 4 { tiff = exif.dropFirst(4 + offset) }
        }
        let read = { (data: Data?, body: (UnsafeRawBufferPointer?) -> ImageMetadata) -> ImageMetadata in
            guard let data else { return body(nil) }
            return data.withUnsafeBytes { body($0) }
        }
        return read(tiff) { exif in
            read(xmp) { xmp in ImageMetadata.read(exif: exif, xmp: xmp, resetOrientation: resetOrientation) }
        }
    }
}
