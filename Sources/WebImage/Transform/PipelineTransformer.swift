/// Several transformers applied in order, as one.
///
/// Its key is its members' keys joined with `-`, SDWebImage's
/// `SDImagePipelineTransformer` format, so the order is part of the key. An empty
/// pipeline has the empty key and returns its input marked as transformed.
/// Immutable and thread-safe.
///
/// ```swift
/// let pipeline = PipelineTransformer([ResizeTransformer(size: size), BlurTransformer(radius: 4)])
/// let result = try pipeline.transform(image)
/// ```
public struct PipelineTransformer: ImageTransformer {
    /// The transformers, first applied first.
    public let transformers: [any ImageTransformer]

    /// Creates a pipeline running `transformers` from first to last.
    public init(_ transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    public var key: String { transformers.map(\.key).joined(separator: "-") }

    public func transform(_ image: Image) throws -> Image {
        guard !transformers.isEmpty else { return image.transformed(into: image.frames) }
        return try transformers.reduce(image) { try $1.transform($0) }
    }
}
