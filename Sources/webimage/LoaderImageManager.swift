import Foundation
import WebImage

/// An ``ImageManaging`` that loads straight through an ``ImageLoader``, without a cache:
/// what `webimage prefetch` uses until it is given ``ImageManager``.
///
/// Thread-safe. Each callback load runs as a task; cancelling its operation cancels the
/// task, which ends the load with ``WebImageError/cancelled``.
struct LoaderImageManager: ImageManaging {
    let loader: any ImageLoader

    func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?
    ) async throws -> ImageLoadResult {
        guard let url else { throw WebImageError.invalidURL("nil URL") }
        var request = DownloadRequestOptions()
        if options.contains(.lowPriority) { request.priority = .low }
        if options.contains(.highPriority) { request.priority = .high }
        let result = try await loader.load(url, options: request, progress: progress)
        return ImageLoadResult(image: result.image, data: result.data, cacheType: .none, url: result.url)
    }

    func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        let task = Task {
            do {
                completion(.success(try await loadImage(with: url, options: options, context: context, progress: progress)))
            } catch {
                completion(.failure(error as? WebImageError ?? .network(String(describing: error))))
            }
        }
        return ImageLoadOperation { task.cancel() }
    }

    func cacheKey(for url: URL?, context: ImageContext) -> String? {
        url?.absoluteString
    }
}
