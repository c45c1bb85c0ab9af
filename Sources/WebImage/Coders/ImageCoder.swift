import Foundation

/// Something that turns encoded bytes of one or more formats into an ``Image`` and back.
///
/// Each built-in format has one coder (`JPEGCoder`, `PNGCoder`, ...), and ``CodersManager``
/// picks among them. Users can add their own for formats the library lacks.
/// Implementations must be thread-safe: one coder instance decodes many images at once.
///
/// ```swift
/// struct MyCoder: ImageCoder { ... }
/// CodersManager.shared.addCoder(MyCoder())
/// ```
public protocol ImageCoder: Sendable {
    /// Whether this coder can decode `data` (usually a magic-byte check; cheap).
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data`. Throws ``WebImageError`` for bad data or limits exceeded; never
    /// traps on malformed input.
    func decode(_ data: Data, options: ImageCoderOptions) throws -> Image
    /// Whether this coder can encode to `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data
}
