import Foundation

/// Something that turns encoded bytes of one or more formats into an ``Image`` and back.
///
/// Each built-in format has one coder (`JPEGCoder`, `PNGCoder`, ...), and ``CodersManager``
/// picks among them. Users can add their own for formats the library lacks, and give them a
/// progressive decoder with ``makeProgressiveDecoder()`` and lazily decoded animations with
/// ``makeAnimatedImageCoder(for:options:)``.
/// Implementations must be thread-safe: one coder instance decodes many images at once.
///
/// ```swift
/// struct MyCoder: ImageCoder { ... }
/// CodersManager.shared.addCoder(MyCoder())
/// ```
public protocol ImageCoder: Sendable {
    /// Whether this coder can decode `data` (usually a magic-byte check; cheap).
    func canDecode(_ data: Data) -> Bool
    /// Whether this coder decodes `data` as `format` when its bytes alone do not say so:
    /// the caller's ``ImageCoderOptions/formatHint`` (SDWebImage's
    /// `imageTypeIdentifierHint`), typically from a response's `Content-Type` or a file's
    /// extension. ``CodersManager`` asks only when no coder recognises the bytes, so a hint
    /// never overrides what the bytes say. Default `false`: a format with magic bytes gains
    /// nothing from a hint, since bytes without them would not decode anyway; a coder for a
    /// format without a reliable signature answers `true` for its own format here.
    func canDecode(_ data: Data, hintedAs format: ImageFormat) -> Bool
    /// Decodes `data`. Throws ``WebImageError`` for bad data or limits exceeded; never
    /// traps on malformed input.
    func decode(_ data: Data, options: ImageCoderOptions) throws -> Image
    /// Whether this coder can encode to `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data
    /// A new decoder that shows this coder's format while it downloads (one per download),
    /// or `nil` when the coder has none. ``CodersManager/progressiveDecoder(for:)`` asks the
    /// coder it would pick for the bytes, so partial images come from the same coder as the
    /// final one. Default `nil`.
    func makeProgressiveDecoder() -> (any ProgressiveImageCoder)?
    /// A decoder that hands out the frames of the animation in `data` on demand, or `nil`
    /// when `data` is not an animation this coder can open lazily. ``CodersManager`` asks
    /// it for ``ImageCoderOptions/decodesFramesOnDemand`` decodes, so a user's coder that
    /// overrides a built-in one decides for its files too. Throws what the frame decoder's
    /// initialiser throws for bad data. Default `nil`.
    func makeAnimatedImageCoder(for data: Data, options: ImageCoderOptions) throws -> (any AnimatedImageCoder)?
}

extension ImageCoder {
    /// No hint helps: this coder recognises its files by their bytes alone.
    public func canDecode(_ data: Data, hintedAs format: ImageFormat) -> Bool { false }

    /// No progressive decoder: partial images are not shown for this coder's formats.
    public func makeProgressiveDecoder() -> (any ProgressiveImageCoder)? { nil }

    /// No lazy animation: this coder's files are decoded whole.
    public func makeAnimatedImageCoder(for data: Data, options: ImageCoderOptions) throws -> (any AnimatedImageCoder)? { nil }
}
