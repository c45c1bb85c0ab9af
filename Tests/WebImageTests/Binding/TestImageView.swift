import Foundation
@testable import WebImage

/// A stand-in for a UI image view: records every image set on it, in order.
@MainActor
final class TestImageView: ImageTarget {
    let webImageState: WebImageState
    private(set) var image: Image?
    private(set) var history: [(image: Image?, cacheType: ImageCacheType)] = []
    /// Runs after each image is set, as a view's own code reacting to it might (and may
    /// start or cancel loads on the view).
    var onSetImage: ((Image?) -> Void)?

    init(manager: any ImageManaging) {
        webImageState = WebImageState(manager: manager)
    }

    func setImage(_ image: Image?, cacheType: ImageCacheType) {
        self.image = image
        history.append((image, cacheType))
        onSetImage?(image)
    }

    /// Whether the images set so far are exactly `images`, by identity.
    func shows(_ images: [Image?]) -> Bool {
        history.count == images.count && zip(history, images).allSatisfy { $0.image === $1 }
    }

    /// Whether `image` was ever shown.
    func hasShown(_ image: Image) -> Bool {
        history.contains { $0.image === image }
    }
}
