/// The version of swift-web-image this module was built from.
///
/// Follows semantic versioning; `0.x` while the public API may still change between
/// minor versions (the core names, `ImageManager`, `ImageCache`, `Downloader`,
/// `CodersManager` and the rest, are kept; others may be refined).
///
/// ```swift
/// print("swift-web-image \(WebImageVersion.current)")
/// ```
public enum WebImageVersion {
    /// The version string, "MAJOR.MINOR.PATCH".
    public static let current = "0.9.0"
}
