/// Which corners of a rectangle to round: SDWebImage's `SDRectCorner` (UIKit's `UIRectCorner`).
///
/// ```swift
/// let top: RectCorner = [.topLeft, .topRight]
/// ```
public struct RectCorner: OptionSet, Sendable, Hashable {
    public let rawValue: UInt

    /// Creates a set of corners from its bits (1 top-left, 2 top-right, 4 bottom-left, 8 bottom-right).
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// The top-left corner (1).
    public static let topLeft = RectCorner(rawValue: 1 << 0)
    /// The top-right corner (2).
    public static let topRight = RectCorner(rawValue: 1 << 1)
    /// The bottom-left corner (4).
    public static let bottomLeft = RectCorner(rawValue: 1 << 2)
    /// The bottom-right corner (8).
    public static let bottomRight = RectCorner(rawValue: 1 << 3)
    /// All four corners (15; UIKit's is all bits set, which keys would print differently).
    public static let allCorners: RectCorner = [.topLeft, .topRight, .bottomLeft, .bottomRight]
}
