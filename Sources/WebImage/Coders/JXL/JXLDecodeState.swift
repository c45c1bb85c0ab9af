import CJXL
import Foundation

/// What one JPEG XL decode learns as libjxl's events arrive: the header, the colour of the
/// decoded pixels, and the frames so far. ``JXLCoder`` drives it with ``run(_:options:)``
/// and turns it into an ``Image`` with ``image(options:)``.
struct JXLDecodeState {
    private var info = JxlBasicInfo()
    private var sawInfo = false
    private var colorProfile: ColorProfile?
    private var frames: [ImageFrame] = []
    private var duration: TimeInterval = 0
    private var output: UnsafeMutableRawBufferPointer?
    /// EXIF and XMP, with ``ImageCoderOptions/readsMetadata``.
    private var boxes = JXLBoxReader()

    private static let rgba = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)

    private var size: ImageSize { ImageSize(width: Int(info.xsize), height: Int(info.ysize)) }

    /// Feeds libjxl's events until the last frame wanted is decoded.
    mutating func run(_ decoder: OpaquePointer, options: ImageCoderOptions) throws {
        defer {
            output?.deallocate()
            output = nil
            boxes.discard()
        }
        while true {
            let status = JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                try readInfo(decoder, options: options)
            case JXL_DEC_COLOR_ENCODING:
                colorProfile = try Self.chooseColor(decoder, gray: info.num_color_channels == 1)
            case JXL_DEC_FRAME:
                var header = JxlFrameHeader()
                guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else {
                    throw WebImageError.badImageData("JPEG XL frame header unreadable")
                }
                // All frames together stay within the pixel limit, as for every animation.
                let (total, overflow) = size.pixelCount.multipliedReportingOverflow(by: frames.count + 1)
                if overflow || total > options.pixelLimit {
                    throw WebImageError.imageTooLarge(width: size.width, height: size.height, limit: options.pixelLimit)
                }
                duration = info.have_animation != 0 && info.animation.tps_numerator > 0
                    ? Double(header.duration) * Double(info.animation.tps_denominator) / Double(info.animation.tps_numerator)
                    : 0
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                try provideOutput(decoder)
            case JXL_DEC_FULL_IMAGE:
                guard let output else { throw WebImageError.badImageData("JPEG XL frame without pixels") }
                let pixels = PixelBuffer(uninitializedWidth: size.width, height: size.height) { buffer in
                    _ = buffer.initialize(from: output.bindMemory(to: UInt8.self))
                }
                frames.append(ImageFrame(pixels: pixels, duration: duration))
                if frames.count >= options.frameLimit {
                    guard options.readsMetadata else { return }
                    // Metadata boxes may follow the codestream, so reading them means running
                    // on to its end, with every later frame skipped: libjxl then parses them
                    // without decoding, and sends no event for them. (Until 2026-11-28 they
                    // were decoded and dropped, and the pixel limit counted only the one
                    // kept, so thousands of frames cost their whole decode.)
                    JxlDecoderSkipFrames(decoder, Int.max)
                }
            case JXL_DEC_BOX:
                boxes.start(decoder)
            case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                boxes.grow(decoder)
            case JXL_DEC_SUCCESS:
                boxes.finish(decoder)
                return
            case JXL_DEC_NEED_MORE_INPUT:
                throw WebImageError.badImageData("JPEG XL data is truncated")
            default:
                throw WebImageError.badImageData("JPEG XL data is truncated or corrupt (libjxl status \(status.rawValue))")
            }
        }
    }

    /// The decoded image, finished (resized, oriented, converted) as `options` ask.
    func image(options: ImageCoderOptions) throws -> Image {
        guard sawInfo, !frames.isEmpty else { throw WebImageError.badImageData("JPEG XL has no frame") }
        let orientation = ImageOrientation(exifValue: Int(info.orientation.rawValue))
        let target = DecodeGeometry.targetSize(sourceSize: size, orientation: orientation, frameCount: frames.count, options: options)
        var finished = frames.map {
            ImageFrame(pixels: DecodeGeometry.finish($0.pixels, orientation: orientation, target: target, options: options),
                       duration: $0.duration)
        }
        let kept = ColorConversion.apply(colorProfile, to: &finished, options: options)
        let upright = (options.applyOrientation ? orientation : .up).orientedSize(size)
        let animated = info.have_animation != 0 && finished.count > 1
        return Image(
            frames: finished,
            format: .jpegXL,
            scale: options.scaleFactor,
            // JPEG XL's 0 means forever, as ours does.
            loopCount: animated ? Int(info.animation.num_loops) : 1,
            orientation: orientation,
            hasAlpha: info.alpha_bits > 0,
            isThumbnail: target.pixelCount < upright.pixelCount,
            colorProfile: kept,
            metadata: options.readsMetadata ? boxes.metadata(resetOrientation: options.applyOrientation) : ImageMetadata()
        )
    }

    private mutating func readInfo(_ decoder: OpaquePointer, options: ImageCoderOptions) throws {
        guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
            throw WebImageError.badImageData("JPEG XL header unreadable")
        }
        sawInfo = true
        try DecodeGeometry.checkPixelLimit(width: Int(info.xsize), height: Int(info.ysize), options: options)
        // libjxl tone-maps only PQ and HLG sources to this peak (SDR pixels are untouched),
        // and only when asked before it reads the colour encoding.
        _ = JxlDecoderSetDesiredIntensityTarget(decoder, JXLCoder.displayNits)
    }

    /// Asks for sRGB pixels (libjxl honours it for XYB-coded files) and returns the profile
    /// of the pixels libjxl will actually deliver when that is not sRGB.
    private static func chooseColor(_ decoder: OpaquePointer, gray: Bool) throws -> ColorProfile? {
        var srgb = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&srgb, gray ? 1 : 0)
        // Refused (harmlessly) by files that keep their original profile.
        _ = JxlDecoderSetPreferredColorProfile(decoder, &srgb)
        var data = JxlColorEncoding()
        // sRGB, or sRGB's primaries with a 1/2.2 gamma, which counts as sRGB here as it
        // does for PNG's gAMA (and in browsers).
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &data) == JXL_DEC_SUCCESS,
           data.white_point == JXL_WHITE_POINT_D65, data.primaries == JXL_PRIMARIES_SRGB || gray,
           data.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
            || (data.transfer_function == JXL_TRANSFER_FUNCTION_GAMMA && abs(data.gamma - 1 / 2.2) < 1e-4) {
            return nil
        }
        // A grey file's profile is grey (libjxl gives one channel's curve); its pixels come
        // out as equal RGB, which ColorConversion converts through that curve.
        var count = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &count) == JXL_DEC_SUCCESS,
              count > 0, count <= ColorProfile.maximumSize else { return nil }
        var icc = [UInt8](repeating: 0, count: count)
        guard JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &icc, count) == JXL_DEC_SUCCESS else {
            return nil
        }
        return icc.withUnsafeBytes { ColorConversion.profile(iccBytes: $0) }
    }

    /// Gives libjxl a buffer for the next frame's RGBA (reused from frame to frame).
    private mutating func provideOutput(_ decoder: OpaquePointer) throws {
        var format = Self.rgba
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS,
              needed == size.pixelCount * 4 else {
            throw WebImageError.badImageData("JPEG XL frame of an unexpected size")
        }
        if output == nil {
            output = UnsafeMutableRawBufferPointer.allocate(byteCount: needed, alignment: 16)
        }
        guard let output, JxlDecoderSetImageOutBuffer(decoder, &format, output.baseAddress, needed) == JXL_DEC_SUCCESS else {
            throw WebImageError.badImageData("libjxl refused the output buffer")
        }
    }
}
