import CHEIF
import Foundation

/// Decodes HEIC and HEIF images (HEVC-coded) with libheif.
///
/// AV1-coded images are ``AVIFCoder``'s: a file carrying the `avif` brand is sniffed as
/// AVIF, and a HEIF file holding AV1 items without that brand (which browsers do not show
/// either) fails with ``WebImageError/unsupportedFormat(_:)`` before libheif reads it, so
/// libheif's dav1d plugin, which leaks on damaged AV1 data (Fuzz/README.md, finding 5),
/// never runs.
///
/// The primary image is decoded to 8-bit RGBA, 10- and 12-bit sources included. libheif
/// applies the file's crop, rotation and mirroring while decoding; the coder reports that
/// turn as ``Image/orientation`` (read from the `irot`/`imir` properties, not from the EXIF
/// block, which HEIF readers ignore because the properties are authoritative). With
/// `applyOrientation` off it undoes the turn, so the pixels are as stored, cropped.
/// libheif 1.15 has no image-sequence reader: an `.heics` file decodes to its primary still.
/// ``ImageCoderOptions/readsMetadata`` keeps the primary image's `Exif` and XMP items.
/// Encodes HEIC (one frame) when libheif has an HEVC encoder (see `HEIFCoder+Encode.swift`).
/// Thread-safe: every call uses its own libheif context.
///
/// ```swift
/// let image = try HEIFCoder().decode(heicData, options: ImageCoderOptions())
/// print(image.size, image.orientation)
/// ```
public struct HEIFCoder: ImageCoder {
    /// The most threads libheif may use for the tiles of one grid image. Default 2: decodes
    /// run concurrently already, so each one stays modest.
    public var maxThreads: Int

    /// Creates a coder with the given thread budget.
    public init(maxThreads: Int = 2) {
        self.maxThreads = max(1, maxThreads)
    }

    /// Accepts the HEIC (`heic`, `heix`, `hevc`, …) and HEIF (`mif1`, `msf1`) brands.
    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat(sniffing: data)
        return format == .heic || format == .heif
    }

    /// Decodes the primary image. The size libheif reads from the header is checked against
    /// `pixelLimit` before any pixel is decoded.
    public func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty HEIF data") }
        let format: ImageFormat = ImageFormat(sniffing: data) == .heic ? .heic : .heif
        _ = HEIFCoder.libraryInitialised
        guard let context = heif_context_alloc() else { throw WebImageError.badImageData("libheif could not create a context") }
        defer { heif_context_free(context) }
        // libheif refuses any item (grid tiles, alpha, thumbnails too) wider or taller than
        // this while reading the header, before it allocates for it.
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: max(1, options.pixelLimit)))
        heif_context_set_max_decoding_threads(context, Int32(maxThreads))

        return try data.withUnsafeBytes { raw -> Image in
            guard let base = raw.baseAddress else { throw WebImageError.badImageData("empty HEIF data") }
            // A grid or overlay's canvas comes from its item data, which libheif checks
            // side by side only (see HEIFPropertyReader.derivedCanvasSize): check the area.
            if let canvas = HEIFPropertyReader.derivedCanvasSize(in: raw) {
                try DecodeGeometry.checkPixelLimit(width: canvas.width, height: canvas.height, options: options)
            }
            // Every check here reads the one file-level `meta` box: with several, libheif
            // may decode items none of them saw (finding 7: an `av01` item behind a damaged
            // first `meta`, which its dav1d plugin then leaked).
            guard HEIFPropertyReader.fileLevelMetaBoxCount(in: raw) <= 1 else {
                throw WebImageError.badImageData("HEIF file with more than one file-level meta box")
            }
            guard !HEIFPropertyReader.hasAV1Item(in: raw) else {
                throw WebImageError.unsupportedFormat(.heif)
            }
            let read = heif_context_read_from_memory_without_copy(context, base, raw.count, nil)
            if read.code == heif_error_Memory_allocation_error, read.subcode == heif_suberror_Security_limit_exceeded,
               let declared = HEIFPropertyReader.size(in: raw) {
                // libheif's own limit (set above) refused an item; name the primary's size
                // when that is what is too large.
                try DecodeGeometry.checkPixelLimit(width: declared.width, height: declared.height, options: options)
            }
            try HEIFCoder.check(read, "reading")
            var handle: OpaquePointer?
            try HEIFCoder.check(heif_context_get_primary_image_handle(context, &handle), "finding the primary image")
            guard let handle else { throw WebImageError.badImageData("HEIF has no primary image") }
            defer { heif_image_handle_release(handle) }

            // The handle's size is the displayed one, after crop and rotation.
            let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
            try DecodeGeometry.checkPixelLimit(width: width, height: height, options: options)
            // What libheif turns while decoding (`irot`/`imir`); a file whose properties
            // leave it as stored may give its orientation in XMP instead, as Pillow's
            // `exif_transpose` reads it (issue 14), which is ours to apply.
            let turnedByLibheif = HEIFPropertyReader.orientation(in: raw) ?? .up
            let fromXMP = turnedByLibheif == .up ? HEIFCoder.xmpOrientation(handle) : nil
            let orientation = fromXMP ?? turnedByLibheif
            let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
            // The nclx box decides both the decode's depth (HDR) and the conversion after it.
            let nclx = HEIFCoder.nclxCodePoints(handle)
            var pixels = try decodePixels(handle, width: width, height: height, nclx: nclx)

            // libheif turned the pixels upright; hand the finisher stored pixels only when
            // the caller wants them as stored.
            let stored = ImageSize(width: width, height: height)
            if !options.applyOrientation {
                pixels = HEIFOrientation.inverse(of: turnedByLibheif).apply(to: pixels)
            }
            let source = options.applyOrientation ? stored : pixels.size
            let target = DecodeGeometry.targetSize(sourceSize: source, orientation: fromXMP ?? .up, frameCount: 1, options: options)
            // Converted after the resize, so a thumbnail converts only its own pixels.
            var finished = DecodeGeometry.finish(pixels, orientation: fromXMP ?? .up, target: target, options: options)
            let kept = ColorConversion.apply(HEIFCoder.colorProfile(handle, nclx: nclx), to: &finished, options: options)
            return Image(
                frames: [ImageFrame(pixels: finished)],
                format: format,
                scale: options.scaleFactor,
                loopCount: 1,
                orientation: orientation,
                hasAlpha: hasAlpha,
                isThumbnail: target.pixelCount < source.pixelCount,
                colorProfile: kept,
                metadata: options.readsMetadata ? HEIFCoder.metadata(handle, options: options) : ImageMetadata()
            )
        }
    }

    /// libheif registers its built-in codecs on first use; doing that once, under Swift's
    /// thread-safe lazy initialisation, keeps concurrent first decodes from racing on it.
    /// The matching `heif_deinit` is left to process exit.
    static let libraryInitialised: Void = {
        _ = heif_init(nil)
    }()

    /// HEIC, when the installed libheif has an HEVC encoder (see `HEIFCoder+Encode.swift`).
    public func canEncode(to format: ImageFormat) -> Bool {
        format == .heic && HEIFCoder.encoderAvailable
    }

    /// Decodes the handle to interleaved 8-bit RGBA and copies it row by row (libheif pads
    /// its rows) into a packed buffer of `width`×`height`. An HDR image (a PQ or HLG `nclx`
    /// and no ICC profile) is decoded at its own depth and tone-mapped to sRGB instead
    /// (``HDRToneMapping``), with the file's content light level when it states one.
    /// `nclx` is the handle's ``nclxCodePoints(_:)``.
    private func decodePixels(
        _ handle: OpaquePointer, width: Int, height: Int, nclx: (primaries: Int, transfer: Int)?
    ) throws -> PixelBuffer {
        guard let decoding = heif_decoding_options_alloc() else { throw WebImageError.badImageData("libheif could not allocate options") }
        defer { heif_decoding_options_free(decoding) }
        // HDR: a PQ or HLG nclx with no ICC profile (which would describe the pixels instead).
        let hdr = nclx.flatMap { nclx in
            heif_image_handle_get_raw_color_profile_size(handle) == 0
                && HDRToneMapping.describesHDR(primaries: nclx.primaries, transfer: nclx.transfer) ? nclx : nil
        }
        decoding.pointee.convert_hdr_to_8bit = hdr == nil ? 1 : 0
        let chroma = hdr == nil ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RRGGBBAA_LE
        var image: OpaquePointer?
        try HEIFCoder.check(heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, decoding), "decoding")
        guard let image else { throw WebImageError.badImageData("libheif returned no image") }
        defer { heif_image_release(image) }

        let depth = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
        guard heif_image_get_width(image, heif_channel_interleaved) == width,
              heif_image_get_height(image, heif_channel_interleaved) == height,
              hdr == nil ? depth == 8 : (9...16).contains(depth) else {
            throw WebImageError.badImageData("HEIF decoded to an unexpected size or depth")
        }
        let pixelBytes = hdr == nil ? 4 : 8
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= width * pixelBytes else {
            throw WebImageError.badImageData("HEIF decoded image has no RGBA plane")
        }
        var toneMapping: HDRToneMapping?
        if let hdr {
            var light = heif_content_light_level()
            if heif_image_has_content_light_level(image) != 0 { heif_image_get_content_light_level(image, &light) }
            let peak = light.max_content_light_level > 0 ? Double(light.max_content_light_level) : nil
            toneMapping = HDRToneMapping.cached(primaries: hdr.primaries, transfer: hdr.transfer, contentPeak: peak,
                                                sampleMaximum: (1 << depth) - 1)
            guard toneMapping != nil else { throw WebImageError.badImageData("HEIF HDR colour cannot be mapped") }
        }
        let rowBytes = width * 4, sourceStride = Int(stride)
        var pixels = PixelBuffer(uninitializedWidth: width, height: height) { buffer in
            guard let destination = buffer.baseAddress else { return }
            if let toneMapping {
                toneMapping.map(plane, sourceRowBytes: sourceStride, width: width, height: height, into: destination)
                return
            }
            for row in 0..<height {
                (destination + row * rowBytes).update(from: plane + row * sourceStride, count: rowBytes)
            }
        }
        if heif_image_is_premultiplied_alpha(image) != 0 {
            pixels.unpremultiplyAlpha()
        }
        return pixels
    }

    /// The colour the `colr` box describes: its ICC profile (`prof`/`rICC`), else its
    /// `nclx` primaries and transfer (``ColorProfile/cicp(primaries:transfer:)``), `nclx`
    /// being the handle's ``nclxCodePoints(_:)``.
    private static func colorProfile(_ handle: OpaquePointer, nclx: (primaries: Int, transfer: Int)?) -> ColorProfile? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0, size <= ColorProfile.maximumSize {
            var icc = [UInt8](repeating: 0, count: size)
            if heif_image_handle_get_raw_color_profile(handle, &icc).code == heif_error_Ok {
                return icc.withUnsafeBytes { ColorConversion.profile(iccBytes: $0) }
            }
        }
        return nclx.flatMap { ColorProfile.cicp(primaries: $0.primaries, transfer: $0.transfer) }
    }

    /// The colour primaries and transfer code points of the handle's `nclx` box, if any.
    private static func nclxCodePoints(_ handle: OpaquePointer) -> (primaries: Int, transfer: Int)? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let read = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        // libheif hands back the block it allocated even when it then fails (a primaries,
        // transfer or matrix code it does not know): free whatever came back, error or not
        // (Fuzz/README.md, finding 4, a 52-byte leak per such file).
        defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
        guard read.code == heif_error_Ok, let nclx else { return nil }
        return (Int(nclx.pointee.color_primaries.rawValue), Int(nclx.pointee.transfer_characteristics.rawValue))
    }

    /// The primary image's first `Exif` item and first XMP (`mime`, `application/rdf+xml`)
    /// item, for ``ImageCoderOptions/readsMetadata``; a block over
    /// ``ImageMetadata/maximumBlockSize`` is not even copied out of libheif. The `Exif`
    /// item starts with a big-endian offset to its TIFF header, which is skipped here. Its
    /// orientation is reset when the decode applies the file's turn: HEIF's `irot`/`imir`
    /// are authoritative, and the pixels are upright by them.
    static func metadata(_ handle: OpaquePointer, options: ImageCoderOptions) -> ImageMetadata {
        var exif: [UInt8] = []
        if let item = metadataBlock(handle, "Exif", contentType: nil), item.count > 4 {
            let offset = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
            if offset < item.count - 4 { exif = Array(item[(4 + offset)...]) }
        }
        let xmp = metadataBlock(handle, "mime", contentType: "application/rdf+xml") ?? []
        return exif.withUnsafeBytes { exifBytes in
            xmp.withUnsafeBytes { xmpBytes in
                ImageMetadata.read(
                    exif: exifBytes.isEmpty ? nil : exifBytes, xmp: xmpBytes.isEmpty ? nil : xmpBytes,
                    resetOrientation: options.applyOrientation)
            }
        }
    }

    /// The primary image's XMP `tiff:Orientation`, if it has one.
    private static func xmpOrientation(_ handle: OpaquePointer) -> ImageOrientation? {
        metadataBlock(handle, "mime", contentType: "application/rdf+xml")?.withUnsafeBytes { ImageMetadata.xmpOrientation(in: $0) }
    }

    /// The first metadata item of `type` (and `contentType`, for `mime` items) attached to
    /// the primary image, unless larger than ``ImageMetadata/maximumBlockSize`` (then not
    /// even copied out of libheif).
    private static func metadataBlock(_ handle: OpaquePointer, _ type: String, contentType: String?) -> [UInt8]? {
        var ids = [heif_item_id](repeating: 0, count: 16)
        let count = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, Int32(ids.count)))
        for id in ids.prefix(max(0, min(count, ids.count))) {
            if let contentType {
                guard let found = heif_image_handle_get_metadata_content_type(handle, id),
                      String(cString: found) == contentType else { continue }
            }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0, size <= ImageMetadata.maximumBlockSize + 4 else { continue }
            var bytes = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &bytes).code == heif_error_Ok else { continue }
            return bytes
        }
        return nil
    }

    /// Turns a libheif failure into `failure` (by default ``WebImageError/badImageData(_:)``,
    /// what a decode reports) with libheif's message.
    static func check(
        _ error: heif_error,
        _ step: String,
        failure: (String) -> WebImageError = WebImageError.badImageData
    ) throws(WebImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "code \(error.code.rawValue)"
        throw failure("HEIF \(step) failed: \(message)")
    }
}

extension HEIFCoder {
    /// libheif, as the loaded library reports itself.
    static var linkedLibrary: LinkedLibrary {
        LinkedLibrary(name: "libheif", version: String(cString: heif_get_version()))
    }
}
