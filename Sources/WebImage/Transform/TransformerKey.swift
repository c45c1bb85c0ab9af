import Foundation

/// Formats the parameters of the built-in transformers' keys the way SDWebImage does.
///
/// SDWebImage prints numbers with `%f` (six decimals), booleans as `0`/`1` and colours as
/// `#aarrggbb`. `%f` alone would give 0.1234561 and 0.1234562 one key, so a number that
/// `%f` does not reproduce exactly is printed in Swift's shortest round-trip form instead:
/// keys stay SDWebImage's for ordinary values and distinct for every distinct value.
enum TransformerKey {
    /// `%f` when it reads back as the same double, otherwise the shortest exact form.
    static func number(_ value: Double) -> String {
        let fixed = String(format: "%f", value)
        return Double(fixed) == value ? fixed : "\(value)"
    }

    /// `{w,h}` as CoreGraphics prints a size.
    static func size(_ size: ImageSize) -> String {
        "{\(number(Double(size.width))),\(number(Double(size.height)))}"
    }

    /// SDWebImage's `sd_hexString`: `#aarrggbb`, lowercase.
    static func color(_ color: RGBAColor) -> String {
        let value = UInt32(color.alpha) << 24 | UInt32(color.red) << 16 | UInt32(color.green) << 8 | UInt32(color.blue)
        let hex = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `1` or `0`, as `%d` prints a `BOOL`.
    static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}
