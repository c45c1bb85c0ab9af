/// An 8-bit sRGB colour with straight (not premultiplied) alpha.
///
/// Used where an option needs a colour, such as the background a JPEG encoder flattens
/// transparent pixels onto.
///
/// ```swift
/// var options = ImageCoderOptions()
/// options.backgroundColor = RGBAColor(red: 0, green: 0, blue: 0)
/// ```
public struct RGBAColor: Sendable, Hashable {
    /// Red, 0...255 (sRGB-encoded, not linear).
    public var red: UInt8
    /// Green, 0...255 (sRGB-encoded, not linear).
    public var green: UInt8
    /// Blue, 0...255 (sRGB-encoded, not linear).
    public var blue: UInt8
    /// Opacity, 0 (transparent) ... 255 (opaque); the colour channels are not multiplied by it.
    public var alpha: UInt8

    /// Creates a colour; `alpha` defaults to opaque.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Opaque white, SDWebImage's default background when alpha is dropped.
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    /// Fully transparent black.
    public static let clear = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
}
