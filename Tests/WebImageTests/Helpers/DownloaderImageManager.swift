import Foundation
@testable import WebImage

/// A thin ``ImageManaging`` over a real ``Downloader`` with no cache, so the prefetcher
/// can be tested against the network stack before the full manager exists.
/// `.lowPriority` / `.highPriority` become the download's priority.
struct DownloaderImageManager: ImageManaging {
    let downloader: Downloader

    private func requestOptions(_ options: ImageOptions) -> DownloadRequestOptions {
        var request = DownloadRequestOptions()
        if options.contains(.lowPriority) { request.priority = .low }
        if options.contains(.highPriority) { request.priority = .high }
        return request
    }

    func loadImage(
        with url: URL?,
        options: ImageOptions,
        context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    ) -> ImageLoadOperation {
        let token = downloader.downloadImage(with: url, options: requestOptions(options), progress: progress) { result in
            completion(result.map { ImageLoadResult(image: $0.image, data: $0.data, cacheType: .none, url: $0.url) })
        }
        return ImageLoadOperation { token?.cancel() }
    }

    func cacheKey(for url: URL?, context: ImageContext) -> String? {
        url?.absoluteString
    }
}
