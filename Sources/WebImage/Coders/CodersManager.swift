import Foundation

/// The ordered set of coders, itself a coder: it hands each job to the right one.
///
/// As in SDWebImage, the coder added last is asked first, so a user's coder added with
/// ``addCoder(_:)`` overrides a built-in one for the same format. Thread-safe; the list is
/// read under a lock and the chosen coder runs outside it.
///
/// ```swift
/// let image = try CodersManager.shared.decode(data)
/// let jpeg = try CodersManager.shared.encode(image, as: .jpeg)
/// ```
public final class CodersManager: ImageCoder {
    /// The process-wide manager with every built-in coder.
    public static let shared = CodersManager()

    /// The built-in coders, in the order they are added (the last is asked first).
    /// Every one checks magic bytes, so the order only matters for user coders added later.
    ///
    /// ``SVGCoder`` and ``PDFCoder`` are not among them: librsvg and poppler have no bound
    /// on what a document makes them allocate, and nothing from a stranger should reach
    /// them. poppler decodes every image a page draws at the image's full size (a 1.4 KB PDF
    /// drawing one 30000 × 30000 image took 3.5 GB); librsvg does the same for an SVG's
    /// embedded images, and sizes a pattern's tile by its scale with no clip (366 bytes took
    /// 1.6 GB). Add them where documents are trusted (``builtInCodersWithDocuments``, or
    /// `CodersManager.shared.addCoder(SVGCoder())`), as SDWebImage's users add its SVG and
    /// PDF coders.
    public static var builtInCoders: [any ImageCoder] {
        [JXLCoder(), BMPCoder(), TIFFCoder(), HEIFCoder(), AVIFCoder(), GIFCoder(), WebPCoder(), PNGCoder(), JPEGCoder()]
    }

    /// ``builtInCoders``, ``SVGCoder`` and ``PDFCoder``: for documents that are trusted (see
    /// there). Asking the two costs nothing until they decode: their libraries load then.
    public static var builtInCodersWithDocuments: [any ImageCoder] {
        [PDFCoder(), SVGCoder()] + builtInCoders
    }

    private let registry: OrderedRegistry<any ImageCoder>

    /// Creates a manager with `coders`, the last of which is asked first.
    /// Defaults to the built-in coders.
    public init(coders: [any ImageCoder] = CodersManager.builtInCoders) {
        registry = OrderedRegistry(coders)
    }

    /// The coders in the order they were added (the last is asked first).
    public var coders: [any ImageCoder] {
        get { registry.entries }
        set { registry.entries = newValue }
    }

    /// Adds a coder that is asked before every coder already present.
    public func addCoder(_ coder: any ImageCoder) {
        registry.add(coder)
    }

    /// Removes every coder for which `shouldRemove` returns `true`.
    public func removeCoders(where shouldRemove: (any ImageCoder) -> Bool) {
        registry.removeAll(where: shouldRemove)
    }

    /// The coder that will decode `data`, if any.
    public func decoder(for data: Data) -> (any ImageCoder)? {
        registry.first { $0.canDecode(data) }
    }

    /// The coder that will encode to `format`, if any.
    public func encoder(for format: ImageFormat) -> (any ImageCoder)? {
        registry.first { $0.canEncode(to: format) }
    }

    /// A progressive decoder for a download whose first bytes are `data`, or `nil` when
    /// the format has none (or the bytes do not tell the format yet).
    ///
    /// It is the ``ImageCoder/makeProgressiveDecoder()`` of the coder this manager would
    /// pick for the finished bytes, so a user's coder that overrides a built-in one
    /// decodes the partial images too (or shows none, by default) and they cannot
    /// disagree with its final image.
    ///
    /// ```swift
    /// let decoder = CodersManager.shared.progressiveDecoder(for: firstChunk)
    /// ```
    public func progressiveDecoder(for data: Data) -> (any ProgressiveImageCoder)? {
        decoder(for: data)?.makeProgressiveDecoder()
    }

    public func canDecode(_ data: Data) -> Bool {
        decoder(for: data) != nil
    }

    /// Whether one of the coders decodes `data` as `format` (``ImageCoder/canDecode(_:hintedAs:)``).
    public func canDecode(_ data: Data, hintedAs format: ImageFormat) -> Bool {
        registry.entries.contains { $0.canDecode(data, hintedAs: format) }
    }

    /// The coder for `data`: the first that recognises its bytes, else, given a hint, the
    /// first that decodes them as the hinted format.
    private func decoder(for data: Data, formatHint: ImageFormat?) -> (any ImageCoder)? {
        if let coder = decoder(for: data) { return coder }
        guard let formatHint else { return nil }
        return registry.first { $0.canDecode(data, hintedAs: formatHint) }
    }

    /// Decodes with the first coder that accepts the data, or, when none recognises its
    /// bytes, the first that accepts them as ``ImageCoderOptions/formatHint``. Empty data
    /// and data no coder accepts fail with ``WebImageError/badImageData(_:)``; a known format without a
    /// decoder (SVG and PDF when their libraries are not installed) with
    /// ``WebImageError/unsupportedFormat(_:)``.
    ///
    /// With ``ImageCoderOptions/decodesFramesOnDemand``, an animation that coder opens
    /// lazily (``ImageCoder/makeAnimatedImageCoder(for:options:)``) comes back as its poster
    /// frame with the ``AnimatedImage`` attached, its other frames not yet decoded.
    public func decode(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badImageData("empty data") }
        guard let coder = decoder(for: data, formatHint: options.formatHint) else {
            let format = ImageFormat(sniffing: data)
            if format == .undefined { throw WebImageError.badImageData("unrecognised image format") }
            throw WebImageError.unsupportedFormat(format)
        }
        if options.decodesFramesOnDemand, !options.decodeFirstFrameOnly,
           let source = try coder.makeAnimatedImageCoder(for: data, options: options), source.frameCount > 1 {
            let animation = try AnimatedImage(coder: source, scale: options.scaleFactor, pixelLimit: options.pixelLimit)
            if options.preloadAllFrames { try animation.preloadAllFrames() }
            return Image(animation: animation)
        }
        return try coder.decode(data, options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        encoder(for: format) != nil
    }

    /// Encodes with the first coder that accepts `format`.
    public func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions = ImageCoderOptions()) throws -> Data {
        guard let coder = encoder(for: format) else { throw WebImageError.unsupportedFormat(format) }
        return try coder.encode(image, as: format, options: options)
    }
}
