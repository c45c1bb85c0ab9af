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

/// A C library the codecs are built on, with the version it reports.
///
/// Image bugs are often bugs of one library version (a libheif that cannot read a phone's
/// file, a libavif without an encoder), so `webimage --version` prints these and a bug
/// report carries them. Where a library reports its version at run time the loaded copy
/// answers; where it only has a header macro (libjpeg-turbo, giflib) the headers the
/// package was compiled against answer.
///
/// ```swift
/// for library in LinkedLibrary.all { print(library) }   // "libjpeg-turbo 2.1.5", ...
/// ```
///
/// Thread-safe: a value type; ``all`` calls only version functions that read constants.
public struct LinkedLibrary: Sendable, Hashable, CustomStringConvertible {
    /// The library's usual name ("libpng").
    public let name: String
    /// Its version as the library words it ("1.6.39"); some add build details in brackets.
    public let version: String

    /// A library and its version.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    /// "name version", the form `--version` prints.
    public var description: String { "\(name) \(version)" }

    /// Every image library the built-in coders use, in the order formats are listed
    /// (JPEG, PNG, GIF, WebP, AVIF, HEIF, TIFF, JPEG XL), then Little CMS, which converts
    /// their colours. BMP is decoded by our own code; librsvg and poppler (SVG, PDF) are
    /// left out because asking their versions would load them.
    public static var all: [LinkedLibrary] {
        [JPEGCoder.linkedLibrary, PNGCoder.linkedLibrary, GIFCoder.linkedLibrary, WebPCoder.linkedLibrary,
         AVIFCoder.linkedLibrary, HEIFCoder.linkedLibrary, TIFFCoder.linkedLibrary, JXLCoder.linkedLibrary,
         ColorTransform.linkedLibrary]
    }
}
