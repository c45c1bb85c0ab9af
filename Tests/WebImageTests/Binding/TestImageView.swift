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

/// Waits on the main actor until `condition` holds or `timeout` passes; returns whether it held.
///
/// The default is long: it returns as soon as the condition holds, so the limit costs
/// nothing then. A load's 5-ms delay and its hop back to the main actor wait for the
/// cooperative pool, which the parallel pass keeps busy, most of all as it starts: 10 s was
/// not enough on a starved machine, nor 30 s on one starved harder. It looks every 5 ms,
/// not every millisecond, to add less to that pool's work.
@MainActor
func eventually(timeout: Duration = .seconds(60).scaled, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
