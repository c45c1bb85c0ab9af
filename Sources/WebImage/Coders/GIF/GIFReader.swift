import CGIF

/// giflib's record-level decoder over bytes in memory: the one place that talks to giflib.
///
/// ``GIFCoder`` walks the file record by record rather than with `DGifSlurp`, so it can stop
/// after the first image, skip image data it does not need, keep the frames read before a
/// truncation, and never let giflib allocate a raster for a frame (a frame may declare
/// 65535×65535; only one row of it is held at a time here).
///
/// A reader exists only inside ``read(_:_:)``, which owns the giflib handle and closes it
/// when the body returns. Not thread-safe; each decode makes its own.
struct GIFReader {
    /// One record of the file, in file order.
    enum Record {
        /// An image descriptor was read; its data must be read or skipped next.
        case image(GIFImageDescriptor)
        /// An extension: its label and its data sub-blocks, in order.
        case `extension`(label: Int, blocks: [[UInt8]])
        /// The trailer (`;`).
        case end
    }

    /// A giflib failure, with giflib's own description.
    struct Failure: Error {
        let reason: String
    }

    private let file: UnsafeMutablePointer<GifFileType>
    private let cursor: GIFInputCursor

    /// How many bytes of the file have been consumed: between records, the offset of the
    /// next record, which ``read(_:resumingAt:_:)`` can start from later.
    var position: Int { cursor.offset }

    /// The logical screen (canvas) size from the header.
    var canvasSize: ImageSize {
        ImageSize(width: Int(file.pointee.SWidth), height: Int(file.pointee.SHeight))
    }

    /// The global colour table, if the file has one.
    var globalPalette: GIFPalette? {
        GIFPalette(file.pointee.SColorMap)
    }

    /// Opens giflib over `bytes` (header and global colour table are read at once), runs
    /// `body`, and closes the handle however `body` ends. With `resumingAt`, records are
    /// read from that offset (a ``position`` saved earlier) instead of after the header:
    /// giflib reads nothing ahead, so the lazy frame source can continue where it stopped.
    static func read<R>(_ bytes: UnsafeRawBufferPointer, resumingAt offset: Int? = nil,
                        _ body: (GIFReader) throws -> R) throws -> R {
        let cursor = GIFInputCursor(bytes)
        return try withExtendedLifetime(cursor) {
            var error: Int32 = 0
            // giflib hands `UserData` back to the read function, so the cursor travels
            // with the handle and no global state is needed. The closure captures nothing,
            // so it converts to the C function pointer giflib wants.
            let opened = DGifOpen(Unmanaged.passUnretained(cursor).toOpaque(), { gif, buffer, count in
                guard let gif, let buffer, count > 0, let user = gif.pointee.UserData else { return 0 }
                let cursor = Unmanaged<GIFInputCursor>.fromOpaque(user).takeUnretainedValue()
                return Int32(cursor.read(into: buffer, count: Int(count)))
            }, &error)
            guard let file = opened else { throw Failure(reason: GIFReader.describe(error)) }
            defer { DGifCloseFile(file, nil) }
            if let offset { cursor.seek(to: offset) }
            return try body(GIFReader(file: file, cursor: cursor))
        }
    }

    /// The next record. Extensions come back whole (all sub-blocks read).
    func nextRecord() throws -> Record {
        var type = UNDEFINED_RECORD_TYPE
        try check(DGifGetRecordType(file, &type))
        switch type {
        case IMAGE_DESC_RECORD_TYPE:
            try check(DGifGetImageDesc(file))
            let image = file.pointee.Image
            return .image(GIFImageDescriptor(
                left: Int(image.Left), top: Int(image.Top),
                width: Int(image.Width), height: Int(image.Height),
                isInterlaced: image.Interlace,
                localPalette: GIFPalette(image.ColorMap)
            ))
        case EXTENSION_RECORD_TYPE:
            var label: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>?
            try check(DGifGetExtension(file, &label, &block))
            var blocks: [[UInt8]] = []
            // Each sub-block consumes at least one byte of input, so this ends with the data.
            while let current = block {
                // giflib returns Pascal-style blocks: the first byte is the length.
                let length = Int(current[0])
                blocks.append(Array(UnsafeBufferPointer(start: current + 1, count: length)))
                try check(DGifGetExtensionNext(file, &block))
            }
            return .extension(label: Int(label), blocks: blocks)
        case TERMINATE_RECORD_TYPE:
            return .end
        default:
            throw Failure(reason: "unknown record type")
        }
    }

    /// Decodes the pixel indices of the image just described, handing each row to `row`
    /// with its row number inside the frame (interlaced rows are put in display order).
    /// `row` is never given more rows than the descriptor declares.
    func readPixels(of image: GIFImageDescriptor, row: (Int, UnsafeBufferPointer<UInt8>) -> Void) throws {
        guard image.width > 0, image.height > 0 else { return try skipPixels() }
        var line = [UInt8](repeating: 0, count: image.width)
        try line.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in GIFReader.rowOrder(height: image.height, interlaced: image.isInterlaced) {
                guard DGifGetLine(file, base, Int32(image.width)) == GIF_OK else {
                    // Some encoders end the LZW data (with its end code) before the last
                    // pixel. Browsers show the rows that arrived and go on to the next
                    // frame; so do we. giflib has read whole sub-blocks, so skipping the
                    // rest of them lands on the next record. Other failures are fatal.
                    guard file.pointee.Error == D_GIF_ERR_EOF_TOO_SOON else {
                        throw Failure(reason: GIFReader.describe(file.pointee.Error))
                    }
                    return try skipRemainingBlocks()
                }
                row(y, UnsafeBufferPointer(buffer))
            }
        }
    }

    /// Skips the compressed data of the image just described without decoding it.
    func skipPixels() throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetCode(file, &codeSize, &block))
        while block != nil {
            try check(DGifGetCodeNext(file, &block))
        }
    }

    /// Reads the data sub-blocks left after a partly decoded image, up to its terminator.
    private func skipRemainingBlocks() throws {
        var block: UnsafeMutablePointer<GifByteType>?
        repeat {
            try check(DGifGetCodeNext(file, &block))
        } while block != nil
    }

    /// Row numbers in the order the file stores them: top to bottom, or the four
    /// interlace passes (every 8th row from 0, every 8th from 4, every 4th from 2,
    /// every 2nd from 1).
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in
            Array(stride(from: start, to: height, by: step))
        }
    }

    private func check(_ status: Int32) throws {
        guard status == GIF_OK else { throw Failure(reason: GIFReader.describe(file.pointee.Error)) }
    }

    private static func describe(_ code: Int32) -> String {
        guard let message = GifErrorString(code) else { return "giflib error \(code)" }
        return String(cString: message)
    }
}

/// The frame rectangle and colour table of one image descriptor.
struct GIFImageDescriptor {
    let left: Int
    let top: Int
    let width: Int
    let height: Int
    let isInterlaced: Bool
    let localPalette: GIFPalette?
}

/// A colour table as RGBA bytes (alpha 255), 4 bytes per entry.
struct GIFPalette {
    /// Number of entries the file declares (2...256).
    let count: Int
    /// `count × 4` bytes.
    let rgba: [UInt8]

    /// Copies giflib's colour map; `nil` when there is none or it is malformed.
    init?(_ map: UnsafeMutablePointer<ColorMapObject>?) {
        guard let map, let colors = map.pointee.Colors else { return nil }
        let count = Int(map.pointee.ColorCount)
        guard count > 0, count <= 256 else { return nil }
        var rgba = [UInt8](repeating: 255, count: count * 4)
        for index in 0..<count {
            let color = colors[index]
            rgba[index * 4] = color.Red
            rgba[index * 4 + 1] = color.Green
            rgba[index * 4 + 2] = color.Blue
        }
        self.count = count
        self.rgba = rgba
    }
}

/// The bounded in-memory read position giflib's input function advances.
private final class GIFInputCursor {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Moves the read position, clamped to the data.
    func seek(to position: Int) {
        offset = min(max(0, position), bytes.count)
    }

    /// Copies up to `count` bytes into `buffer`; fewer (down to 0) at the end of the data,
    /// which giflib reports as a read failure.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let available = min(count, bytes.count - offset)
        guard available > 0, let base = bytes.baseAddress else { return 0 }
        UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: available)
        offset += available
        return available
    }
}
