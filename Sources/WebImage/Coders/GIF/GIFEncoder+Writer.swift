import CGIF

extension GIFEncoder {
    /// giflib's record-level encoder writing into memory: the one place that calls giflib
    /// to write.
    ///
    /// A writer exists only inside ``write(_:)``, which owns the giflib handle: it opens it
    /// with an output function that appends to a growing buffer reached through giflib's
    /// `UserData` (no global state), and closes it exactly once, whether the body returns
    /// or throws. Not thread-safe; each encode makes its own.
    struct Writer {
        private let file: UnsafeMutablePointer<GifFileType>

        /// Runs `body` on a fresh GIF89a stream and returns the bytes written, the
        /// trailer included.
        static func write(_ body: (Writer) throws -> Void) throws -> [UInt8] {
            let sink = GIFOutputSink()
            try withExtendedLifetime(sink) {
                var error: Int32 = 0
                // The closure captures nothing, so it converts to giflib's C function pointer.
                let opened = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), { gif, bytes, count in
                    guard let gif, let bytes, count >= 0, let user = gif.pointee.UserData else { return 0 }
                    Unmanaged<GIFOutputSink>.fromOpaque(user).takeUnretainedValue()
                        .append(UnsafeBufferPointer(start: bytes, count: Int(count)))
                    return count
                }, &error)
                guard let file = opened else { throw failure(error) }
                // EGifCloseFile frees the handle even when it fails, so it must run once:
                // here on a thrown error, below (where its result matters) on success.
                var closed = false
                defer { if !closed { EGifCloseFile(file, nil) } }
                // Without this giflib writes "GIF87a", which has no extensions.
                EGifSetGifVersion(file, true)
                try body(Writer(file: file))
                closed = true
                guard EGifCloseFile(file, &error) == GIF_OK else { throw failure(error) }
            }
            return sink.bytes
        }

        /// The logical screen and the global colour table (`rgb`, 3 bytes an entry, padded
        /// with black to the power of two GIF requires). `background` is the entry decoders
        /// that honour the background colour clear to.
        func putScreen(width: Int, height: Int, rgb: [UInt8], background: Int) throws {
            let entries = rgb.count / 3
            var size = 2
            while size < entries { size *= 2 }
            var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
            for index in 0..<entries {
                colors[index] = GifColorType(Red: rgb[index * 3], Green: rgb[index * 3 + 1], Blue: rgb[index * 3 + 2])
            }
            guard let map = GifMakeMapObject(Int32(size), &colors) else {
                throw WebImageError.encodingFailed("GIF: no memory for the colour table")
            }
            defer { GifFreeMapObject(map) }
            // giflib copies the map; 8 bits of colour resolution.
            try check(EGifPutScreenDesc(file, Int32(width), Int32(height), 8, Int32(background), map))
        }

        /// The NETSCAPE2.0 application extension: play `loopCount` times (0 = forever).
        func putLoopCount(_ loopCount: Int) throws {
            let count = min(max(loopCount, 0), 0xFFFF)
            try check(EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE))
            var identifier = Array("NETSCAPE2.0".utf8)
            try check(EGifPutExtensionBlock(file, Int32(identifier.count), &identifier))
            var data: [UInt8] = [1, UInt8(count & 0xFF), UInt8(count >> 8)]
            try check(EGifPutExtensionBlock(file, Int32(data.count), &data))
            try check(EGifPutExtensionTrailer(file))
        }

        /// A graphic control extension for the next image: `disposal` as GIF numbers it
        /// (1 keep, 2 clear to background), `delay` in hundredths of a second.
        func putGraphicControl(disposal: Int, delay: Int, transparentIndex: Int?) throws {
            let packed = UInt8(disposal & 0x07) << 2 | (transparentIndex == nil ? 0 : 1)
            let delay = min(max(delay, 0), 0xFFFF)
            var block: [UInt8] = [packed, UInt8(delay & 0xFF), UInt8(delay >> 8), UInt8(truncatingIfNeeded: transparentIndex ?? 0)]
            try check(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, Int32(block.count), &block))
        }

        /// An image of `width × height` palette indices at `left`, `top`, using the global
        /// colour table. giflib masks the indices in place, so they are taken `inout`.
        func putImage(left: Int, top: Int, width: Int, height: Int, indices: inout [UInt8]) throws {
            precondition(indices.count == width * height, "one index per pixel of the frame rectangle")
            try check(EGifPutImageDesc(file, Int32(left), Int32(top), Int32(width), Int32(height), false, nil))
            try indices.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                try check(EGifPutLine(file, base, Int32(buffer.count)))
            }
        }

        private func check(_ status: Int32) throws {
            guard status == GIF_OK else { throw Writer.failure(file.pointee.Error) }
        }

        private static func failure(_ code: Int32) -> WebImageError {
            guard let message = GifErrorString(code) else { return .encodingFailed("GIF: giflib error \(code)") }
            return .encodingFailed("GIF: \(String(cString: message))")
        }
    }
}

/// The growing buffer giflib's output function appends to.
private final class GIFOutputSink {
    private(set) var bytes: [UInt8] = []

    func append(_ chunk: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: chunk)
    }
}
