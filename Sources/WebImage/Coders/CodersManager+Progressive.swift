import Foundation

extension CodersManager {
    /// A progressive decoder for a download whose first bytes are `data`, or `nil` when
    /// the format has none (or the bytes do not tell the format yet).
    ///
    /// Only when the coder this manager would pick for the finished bytes is the built-in
    /// one for the format: a user's coder that overrides it decodes the final image, so
    /// partial images from another decoder could disagree with it.
    ///
    /// ```swift
    /// let decoder = CodersManager.shared.progressiveDecoder(for: firstChunk)
    /// ```
    public func progressiveDecoder(for data: Data) -> (any ProgressiveImageCoder)? {
        guard let coder = decoder(for: data) else { return nil }
        switch coder {
        case is JPEGCoder: return JPEGProgressiveDecoder()
        case is PNGCoder: return PNGProgressiveDecoder()
        case is GIFCoder: return GIFProgressiveDecoder()
        case is WebPCoder: return WebPProgressiveDecoder()
        default: return nil
        }
    }
}
