import Foundation

/// The ordered set of loaders, itself a loader: it hands each URL to the right one
/// (SDWebImage's `SDImageLoadersManager`).
///
/// As with coders, the loader added last is asked first, so a user's loader added with
/// ``addLoader(_:)`` takes over the URLs it claims. The default set handles `http`,
/// `https` (``Downloader/shared``), `file` and `data`. Thread-safe; the list is read under
/// a lock and the chosen loader runs outside it.
///
/// ```swift
/// LoadersManager.shared.addLoader(MyS3Loader())
/// let result = try await LoadersManager.shared.load(url, options: .init(), progress: nil)
/// ```
public final class LoadersManager: ImageLoader {
    /// The process-wide manager with the built-in loaders.
    public static let shared = LoadersManager()

    private let registry: OrderedRegistry<any ImageLoader>

    /// Creates a manager with `loaders`, the last of which is asked first.
    public init(loaders: [any ImageLoader] = [Downloader.shared, FileURLLoader(), DataURLLoader()]) {
        registry = OrderedRegistry(loaders)
    }

    /// The loaders in the order they were added (the last is asked first).
    public var loaders: [any ImageLoader] {
        get { registry.entries }
        set { registry.entries = newValue }
    }

    /// Adds a loader that is asked before every loader already present.
    public func addLoader(_ loader: any ImageLoader) {
        registry.add(loader)
    }

    /// Removes every loader for which `shouldRemove` returns `true`.
    public func removeLoaders(where shouldRemove: (any ImageLoader) -> Bool) {
        registry.removeAll(where: shouldRemove)
    }

    /// The loader that will load `url`, if any.
    public func loader(for url: URL) -> (any ImageLoader)? {
        registry.first { $0.canLoad(url) }
    }

    public func canLoad(_ url: URL) -> Bool {
        loader(for: url) != nil
    }

    /// Loads with the first loader that accepts `url`; none fails with
    /// ``WebImageError/invalidURL(_:)``.
    public func load(_ url: URL, options: DownloadRequestOptions, progress: LoadProgressHandler?) async throws(WebImageError) -> ImageLoaderOutput {
        guard let loader = loader(for: url) else { throw .invalidURL(url.absoluteString) }
        return try await loader.load(url, options: options, progress: progress)
    }
}
