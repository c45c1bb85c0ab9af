import CWebP
import Foundation

extension WebPCoder {
    /// One still WebP through libwebp's advanced API: lossy at `quality` (0...1), or lossless.
    static func encodeStill(_ pixels: PixelBuffer, quality: Double, lossless: Bool) throws -> Data {
        var config = try makeConfig(quality: quality, lossless: lossless)
        return try withPicture(pixels) { picture in
            var writer = WebPMemoryWriter()
            WebPMemoryWriterInit(&writer)
            defer { WebPMemoryWriterClear(&writer) }
            let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
                picture.pointee.writer = WebPMemoryWrite
                picture.pointee.custom_ptr = UnsafeMutableRawPointer(writerPointer)
                return WebPEncode(&config, picture)
            }
            guard encoded != 0 else {
                throw WebImageError.encodingFailed("WebP: \(describe(picture.pointee.error_code))")
            }
            guard let memory = writer.mem, writer.size > 0 else {
                throw WebImageError.encodingFailed("WebP: the encoder wrote nothing")
            }
            return Data(bytes: memory, count: writer.size)
        }
    }

    /// An animated WebP: every frame through libwebp's animation encoder, which keeps each
    /// frame's duration and stores only what changed. Consecutive identical frames are
    /// merged into one longer frame by libwebp.
    static func encodeAnimation(_ frames: [ImageFrame], loopCount: Int, quality: Double, lossless: Bool) throws -> Data {
        let size = frames[0].pixels.size
        var config = try makeConfig(quality: quality, lossless: lossless)
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw WebImageError.encodingFailed("libwebp version mismatch")
        }
        // The ANIM chunk stores the loop count in 16 bits; 0 means forever, as in ``Image``.
        encoderOptions.anim_params.loop_count = Int32(min(max(loopCount, 0), 0xFFFF))
        encoderOptions.anim_params.bgcolor = 0
        guard let encoder = WebPAnimEncoderNew(Int32(size.width), Int32(size.height), &encoderOptions) else {
            throw WebImageError.encodingFailed("WebP: cannot animate at \(size)")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var timestamp = 0
        for (index, frame) in frames.enumerated() {
            guard frame.pixels.size == size else {
                throw WebImageError.encodingFailed("WebP: frame \(index) is \(frame.pixels.size), not \(size)")
            }
            try withPicture(frame.pixels) { picture in
                guard WebPAnimEncoderAdd(encoder, picture, Int32(timestamp), &config) != 0 else {
                    throw WebImageError.encodingFailed("WebP: \(animationError(encoder))")
                }
            }
            // libwebp takes the timestamp as a 32-bit int: frames a file says last 4.6 hours
            // each add up past it within 129 frames, and the conversion above would trap.
            // Past that (24.8 days) the remaining frames last no time.
            // Within the 24 bits a WebP frame stores.
            timestamp = min(timestamp + EncodeConstraints.milliseconds(frame.duration, maximum: 0xFF_FFFF), Int(Int32.max))
        }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(timestamp), nil) != 0 else {
            throw WebImageError.encodingFailed("WebP: \(animationError(encoder))")
        }
        var output = WebPData()
        WebPDataInit(&output)
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes, output.size > 0 else {
            throw WebImageError.encodingFailed("WebP: \(animationError(encoder))")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// `webp` with `metadata` in its `ICCP`, `EXIF` and `XMP ` chunks, through libwebp's
    /// muxer (the encoders themselves write no metadata), which also sets the header flags.
    static func embedding(_ metadata: EncodedMetadata, in webp: Data) throws -> Data {
        try webp.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else {
                throw WebImageError.encodingFailed("WebP: nothing to embed metadata in")
            }
            var image = WebPData(bytes: base, size: raw.count)
            guard let mux = WebPMuxCreate(&image, 0) else {
                throw WebImageError.encodingFailed("WebP: the muxer cannot read the encoded file")
            }
            defer { WebPMuxDelete(mux) }
            let chunks: [(fourCC: String, bytes: Data?)] = [
                ("ICCP", metadata.colorProfile?.data), ("EXIF", metadata.exif), ("XMP ", metadata.xmp),
            ]
            for (fourCC, bytes) in chunks {
                guard let bytes else { continue }
                try [UInt8](bytes).withUnsafeBufferPointer { payload in
                    // copy_data 1: the muxer keeps its own copy, so the array may go after this call.
                    var chunk = WebPData(bytes: payload.baseAddress, size: payload.count)
                    guard WebPMuxSetChunk(mux, fourCC, &chunk, 1) == WEBP_MUX_OK else {
                        throw WebImageError.encodingFailed("WebP: the muxer refused the \(fourCC) chunk")
                    }
                }
            }
            var output = WebPData()
            WebPDataInit(&output)
            defer { WebPDataClear(&output) }
            guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes, output.size > 0 else {
                throw WebImageError.encodingFailed("WebP: the muxer could not write the file")
            }
            return Data(bytes: bytes, count: output.size)
        }
    }

    private static func makeConfig(quality: Double, lossless: Bool) throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw WebImageError.encodingFailed("libwebp version mismatch")
        }
        if lossless {
            // Level 6 is cwebp's default effort; `exact` keeps the colour under fully
            // transparent pixels, so lossless really gives back every byte.
            guard WebPConfigLosslessPreset(&config, 6) != 0 else {
                throw WebImageError.encodingFailed("WebP: invalid lossless preset")
            }
            config.exact = 1
        } else {
            config.quality = Float(min(1, max(0, quality)) * 100)
            config.method = 4
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw WebImageError.encodingFailed("WebP: invalid configuration")
        }
        return config
    }

    /// Runs `body` with a picture holding a copy of `pixels` as ARGB, freed afterwards.
    private static func withPicture<R>(_ pixels: PixelBuffer, _ body: (UnsafeMutablePointer<WebPPicture>) throws -> R) throws -> R {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebImageError.encodingFailed("libwebp version mismatch")
        }
        picture.use_argb = 1
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        defer { WebPPictureFree(&picture) }
        let imported = pixels.bytes.withUnsafeBufferPointer { buffer in
            WebPPictureImportRGBA(&picture, buffer.baseAddress, Int32(pixels.bytesPerRow))
        }
        guard imported != 0 else {
            throw WebImageError.encodingFailed("WebP: cannot take a \(pixels.size) picture")
        }
        return try withUnsafeMutablePointer(to: &picture) { try body($0) }
    }

    private static func animationError(_ encoder: OpaquePointer) -> String {
        guard let message = WebPAnimEncoderGetError(encoder) else { return "animation encoder failed" }
        return String(cString: message)
    }

    private static func describe(_ error: WebPEncodingError) -> String {
        switch error {
        case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BAD_DIMENSION: "size not encodable (WebP allows at most 16383 pixels a side)"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW, VP8_ENC_ERROR_PARTITION_OVERFLOW: "partition too large"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "file would exceed 4 GB"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "invalid configuration"
        default: "libwebp encoding error \(error.rawValue)"
        }
    }
}
