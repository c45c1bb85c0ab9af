/// A size in whole pixels.
///
/// Images on Linux have no CoreGraphics, and pixel work needs integers anyway, so sizes in
/// this library are `Int` pairs rather than `CGSize`.
///
/// ```swift
/// var options = ImageCoderOptions()
/// options.thumbnailPixelSize = ImageSize(width: 256, height: 256)
/// ```
public struct ImageSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size; negative values are kept as given and treated as empty by callers.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `width × height`, or 0 when either side is not positive, or `Int.max` when the
    /// product does not fit.
    public var pixelCount: Int {
        guard width > 0, height > 0 else { return 0 }
        // A caller's box (a thumbnail size) may be too large to count: it then counts as
        // larger than any image, never as a crash.
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : count
    }

    /// `"WxH"`, the form the command line reads and prints.
    public var description: String { "\(width)x\(height)" }
}
