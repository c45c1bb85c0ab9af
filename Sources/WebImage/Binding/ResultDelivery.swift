import Foundation
import Synchronization

/// Everything needed to hand one load's results to its target on the main actor: the
/// target (weakly, so a load never keeps a view alive), the load's key and generation,
/// and what to do with the image.
struct ResultDelivery<Target: ImageTarget>: Sendable {
    weak var target: Target?
    let key: String
    let generation: UInt64
    let placeholder: Image?
    let options: ImageOptions

    init(target: Target, key: String, generation: UInt64, placeholder: Image?, options: ImageOptions) {
        self.target = target
        self.key = key
        self.generation = generation
        self.placeholder = placeholder
        self.options = options
    }

    /// Shows the result and completes, if this load is still the target's current one;
    /// a replaced or cancelled load already completed with `.cancelled`.
    @MainActor
    func deliver(_ result: Result<ImageLoadResult, WebImageError>) {
        // Only a cached result of a `.refreshCached` load may be followed by another (the
        // refresh's, when the image changed); a result from the network, or a failure, is
        // the last, and the slot lets go of the operation and the completion.
        let isCached = if case .success(let loaded) = result { loaded.cacheType != .none } else { false }
        let keepsOperation = options.contains(.refreshCached) && isCached
        guard let target, let slot = target.webImageState.finish(key: key, generation: generation, keepsOperation: keepsOperation) else { return }
        switch result {
        case .success(let loaded):
            if !options.contains(.avoidAutoSetImage) {
                target.setImage(loaded.image, cacheType: loaded.cacheType)
            }
        case .failure:
            // SDWebImage's delayPlaceholder: the placeholder stands in for an image that never came.
            if options.contains(.delayPlaceholder) {
                target.setImage(placeholder, cacheType: .none)
            }
        }
        slot.completion?(result)
    }

    /// Forwards progress to the caller and, for progressive loads, shows partial images
    /// while the load is current and unfinished.
    func progressHandler(forwarding progress: LoadProgressHandler?) -> LoadProgressHandler? {
        let showsPartials = options.contains(.progressiveLoad) && !options.contains(.avoidAutoSetImage)
        guard showsPartials else { return progress }
        return { report in
            progress?(report)
            guard let partial = report.partialImage else { return }
            Task { @MainActor in
                guard let target, target.webImageState.isRunning(key: key, generation: generation) else { return }
                target.setImage(partial, cacheType: .none)
            }
        }
    }
}
