import CJXL
import Foundation

extension JXLCoder {
    /// Encodes `image` as JPEG XL: a still for one frame, an animation (millisecond ticks,
    /// the image's loop count) for several.
    ///
    /// `compressionQuality` maps onto libjxl's distance as its `cjxl` maps a quality of 0–100
    /// (1 → distance 0.1, visually lossless; 0.9 → 1, libjxl's default; lower qualities
    /// grow the distance up to 15). `lossless` stores the pixels exactly; when that exceeds
    /// `maxFileSize`, the encoder falls back to the lossy quality search.
    ///
    /// Metadata follows ``ImageCoderOptions/MetadataPolicy``: a kept profile is embedded
    /// (its ICC bytes in the codestream, the pixels coded in that colour space rather than
    /// XYB, so a decoder hands back the same pixels and profile), or, when the policy strips
    /// it, the pixels are converted to sRGB first; with ``ImageCoderOptions/MetadataPolicy/all``
    /// EXIF and XMP go into `Exif` and `xml ` boxes of a JPEG XL container.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try checkEncodable(format)
        let (frames, metadata) = EncodedMetadata.prepare(EncodeConstraints.prepare(image, options: options), of: image, options: options)
        let withAlpha = image.hasAlpha && frames.contains { $0.pixels.containsTransparency }
        let animated = frames.count > 1
        let settings = { (distance: Float?) in
            EncodeSettings(distance: distance, alpha: withAlpha, animated: animated, loopCount: image.loopCount,
                              metadata: metadata)
        }
        if options.lossless {
            let exact = try JXLCoder.encode(frames, settings(nil))
            guard let limit = options.maxFileSize, exact.count > limit else { return exact }
        }
        return try EncodeConstraints.fitFileSize(options: options) { quality in
            try JXLCoder.encode(frames, settings(JXLCoder.distance(forQuality: quality)))
        }
    }

    /// cjxl's mapping of a quality (here 0…1 for its 0…100) to a Butteraugli distance.
    static func distance(forQuality quality: Double) -> Float {
        let q = min(100, max(0, quality * 100))
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        return Float(min(15, distance))
    }

    private static func encode(_ frames: [ImageFrame], _ settings: EncodeSettings) throws -> Data {
        guard let encoder = JxlEncoderCreate(nil) else { throw WebImageError.encodingFailed("libjxl could not create an encoder") }
        defer { JxlEncoderDestroy(encoder) }
        let size = frames[0].pixels.size
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(size.width)
        info.ysize = UInt32(size.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.alpha_bits = settings.alpha ? 8 : 0
        info.num_extra_channels = settings.alpha ? 1 : 0
        // Lossless needs the pixels kept in their own colour space rather than XYB, and so
        // does an embedded profile: from XYB, libjxl 0.7 decodes pixels in another space
        // than the profile says (linear sRGB), so the profile would not come back.
        info.uses_original_profile = settings.distance == nil || settings.metadata.colorProfile != nil ? 1 : 0
        if settings.animated {
            info.have_animation = 1
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(clamping: max(0, settings.loopCount))
        }
        try check(JxlEncoderSetBasicInfo(encoder, &info), encoder, "setting the header")
        try addBoxes(settings.metadata, to: encoder)
        if let profile = settings.metadata.colorProfile {
            let bytes = profile.bytes
            try check(JxlEncoderSetICCProfile(encoder, bytes, bytes.count), encoder, "setting the colour profile")
        } else {
            var srgb = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&srgb, 0)
            try check(JxlEncoderSetColorEncoding(encoder, &srgb), encoder, "setting the colour")
        }
        guard let frameSettings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw WebImageError.encodingFailed("libjxl could not create frame settings")
        }
        if let distance = settings.distance {
            try check(JxlEncoderSetFrameDistance(frameSettings, distance), encoder, "setting the distance")
        } else {
            try check(JxlEncoderSetFrameLossless(frameSettings, 1), encoder, "asking for lossless")
        }
        let channels: UInt32 = settings.alpha ? 4 : 3
        var format = JxlPixelFormat(num_channels: channels, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        for frame in frames {
            if settings.animated {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = UInt32(clamping: EncodeConstraints.milliseconds(frame.duration))
                try check(JxlEncoderSetFrameHeader(frameSettings, &header), encoder, "setting a frame's duration")
            }
            let bytes = settings.alpha ? frame.pixels.bytes : rgb(of: frame.pixels)
            try check(JxlEncoderAddImageFrame(frameSettings, &format, bytes, bytes.count), encoder, "adding a frame")
        }
        JxlEncoderCloseInput(encoder)
        return try drain(encoder)
    }

    /// EXIF (after the 4-byte offset of its TIFF header, 0 here) and XMP as metadata boxes,
    /// uncompressed so that every reader finds them. libjxl then writes a container
    /// instead of a bare codestream.
    private static func addBoxes(_ metadata: EncodedMetadata, to encoder: OpaquePointer) throws {
        let boxes = [("Exif", metadata.exif.map { Data(count: 4) + $0 }), ("xml ", metadata.xmp)]
            .compactMap { type, contents in contents.map { (type, [UInt8]($0)) } }
        guard !boxes.isEmpty else { return }
        try check(JxlEncoderUseContainer(encoder, 1), encoder, "asking for a container")
        try check(JxlEncoderUseBoxes(encoder), encoder, "asking for metadata boxes")
        for (type, contents) in boxes {
            let name = type.utf8.map { CChar(bitPattern: $0) }
            try check(JxlEncoderAddBox(encoder, name, contents, contents.count, 0), encoder, "adding the \(type) box")
        }
    }

    /// Runs the encoder to the end, growing the output as it asks.
    private static func drain(_ encoder: OpaquePointer) throws -> Data {
        var output = [UInt8](repeating: 0, count: 64 << 10)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                guard let base = buffer.baseAddress else { return JXL_ENC_ERROR }
                var next: UnsafeMutablePointer<UInt8>? = base + written
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            switch status {
            case JXL_ENC_SUCCESS: return Data(output.prefix(written))
            case JXL_ENC_NEED_MORE_OUTPUT: output += [UInt8](repeating: 0, count: output.count)
            default: try check(status, encoder, "encoding")
            }
        }
    }

    /// The RGB of `pixels`, alpha dropped.
    private static func rgb(of pixels: PixelBuffer) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: pixels.size.pixelCount * 3)
        pixels.bytes.withUnsafeBufferPointer { source in
            for i in 0..<pixels.size.pixelCount {
                rgb[i * 3] = source[i * 4]
                rgb[i * 3 + 1] = source[i * 4 + 1]
                rgb[i * 3 + 2] = source[i * 4 + 2]
            }
        }
        return rgb
    }

    private static func check(_ status: JxlEncoderStatus, _ encoder: OpaquePointer, _ step: String) throws {
        guard status != JXL_ENC_SUCCESS else { return }
        throw WebImageError.encodingFailed("libjxl failed \(step) (error \(JxlEncoderGetError(encoder).rawValue))")
    }
}

extension JXLCoder {
    /// The settings of one JPEG XL encode pass.
    fileprivate struct EncodeSettings {
        /// The Butteraugli distance, or `nil` for lossless.
        var distance: Float?
        var alpha: Bool
        var animated: Bool
        var loopCount: Int
        /// The profile, EXIF and XMP to write.
        var metadata: EncodedMetadata
    }
}
