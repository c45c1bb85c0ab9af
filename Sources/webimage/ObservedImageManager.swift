import Foundation
import WebImage

/// Wraps a manager and reports each finished callback load (its URL and outcome), so
/// `webimage prefetch` can print per-URL lines and count bytes. The `async` form is the
/// protocol's default, over the callback form, so it is observed too. Thread-safe when the
/// wrapped manager and `observe` are.
struct ObservedImageManager: ImageManaging {
    let base: any ImageManaging
    let observe: @Sendable (URL?, Result<ImageLoadResult, WebImageError>) -> Void

    init(_ base: any ImageManaging, observe: @escaping @Sendable (URL?, Result<ImageLoadResult, WebImageError>) -> Void) {
        self.base = base
        self.observe = observe
    }

    func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        base.loadImage(with: url, options: options, context: context, progress: progress) { [observe] result in
            observe(url, result)
            completion(result)
        }
    }

    func cacheKey(for url: URL?, context: ImageContext) -> String? {
        base.cacheKey(for: url, context: context)
    }
}
