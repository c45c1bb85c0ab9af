import Foundation

/// SDWebImage's `sd_setImage` layer for one ``ImageTarget``: reached as `target.webImage`.
///
/// ``setImage(with:placeholder:options:context:progress:completion:)`` shows the placeholder
/// (at once, or with `.delayPlaceholder` only if the load fails), loads through the
/// target's manager, and shows the result unless `.avoidAutoSetImage`. A new load on the
/// same target and operation key cancels the previous one, and a result that arrives after
/// a newer load started is never shown: each load carries a generation number, and only
/// the latest generation of its key may touch the target. A result the manager delivers
/// synchronously (a memory hit) is shown before `setImage` returns, so cached images do not
/// flicker through the placeholder.
///
/// Main-actor isolated. `completion` runs on the main actor once per result (twice only with
/// `.refreshCached` when the image changed); a load that is replaced or cancelled completes
/// at once with ``WebImageError/cancelled``, and a result arriving after that is dropped.
/// When the target is released its loads are cancelled and, as in SDWebImage, their
/// completions are not called. `progress` runs on an arbitrary thread.
///
/// ```swift
/// view.webImage.setImage(with: url, placeholder: grey, options: [.delayPlaceholder]) { result in
///     if case .failure(let error) = result { log(error) }
/// }
/// ```
@MainActor
public struct WebImageBinding<Target: ImageTarget> {
    /// The target this binding acts on.
    public let target: Target

    /// Creates the binding of `target`; usually reached through ``ImageTarget/webImage``.
    public init(target: Target) {
        self.target = target
    }

    /// The URL of the latest load started on the target (kept after it ends or is cancelled).
    public var currentURL: URL? { target.webImageState.currentURL }

    /// Loads `url` into the target, replacing the load running under the same operation key
    /// (`context.operationKey`, by default the target's type name).
    public func setImage(
        with url: URL?,
        placeholder: Image? = nil,
        options: ImageOptions = [],
        context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil
    ) {
        start(url, placeholder, options, context, progress, nil)
    }

    /// Like ``setImage(with:placeholder:options:context:progress:)``, calling `completion` on
    /// the main actor with the result (a trailing closure is the completion).
    public func setImage(
        with url: URL?,
        placeholder: Image? = nil,
        options: ImageOptions = [],
        context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil,
        completion: @escaping WebImageBindingCompletion
    ) {
        start(url, placeholder, options, context, progress, completion)
    }

    private func start(
        _ url: URL?,
        _ placeholder: Image?,
        _ options: ImageOptions,
        _ context: ImageContext,
        _ progress: LoadProgressHandler?,
        _ completion: WebImageBindingCompletion?
    ) {
        let state = target.webImageState
        let key = context.operationKey ?? String(describing: Target.self)
        let (generation, replaced) = state.begin(key: key, url: url, completion: completion)
        replaced?(.failure(.cancelled))
        guard state.isRunning(key: key, generation: generation) else { return }  // replaced's completion started another load
        if !options.contains(.delayPlaceholder) {
            target.setImage(placeholder, cacheType: .none)
            // The target may have started or cancelled a load from inside setImage.
            guard state.isRunning(key: key, generation: generation) else { return }
        }
        let delivery = ResultDelivery(target: target, key: key, generation: generation, placeholder: placeholder, options: options)
        let synchronous = SynchronousResults()
        // Once the manager lets go of the completion below, no result can follow: the slot
        // then lets go of the caller's completion too. A `.refreshCached` load keeps it
        // after the cached image for the refreshed one, which never comes when the image is
        // unchanged; a completion capturing the target's owner then kept owner, target and
        // state alive in a cycle for good.
        let ended = LoadEndWatch { [weak state] in
            Task { @MainActor in state?.loadEnded(key: key, generation: generation) }
        }
        let operation = state.manager.loadImage(
            with: url,
            options: options,
            context: context,
            progress: delivery.progressHandler(forwarding: progress)
        ) { result in
            withExtendedLifetime(ended) {}
            guard !synchronous.hold(result) else { return }
            Task { @MainActor in delivery.deliver(result) }
        }
        state.attach(operation, key: key, generation: generation)
        for result in synchronous.release() {
            delivery.deliver(result)
        }
    }

    /// Cancels the latest load started on the target (under whichever key it used); its
    /// completion gets ``WebImageError/cancelled`` and its result is not shown.
    public func cancelCurrentLoad() {
        target.webImageState.cancel(key: nil)?(.failure(.cancelled))
    }

    /// Cancels the load running under `operationKey`.
    public func cancelLoad(operationKey: String) {
        target.webImageState.cancel(key: operationKey)?(.failure(.cancelled))
    }
}

extension WebImageBinding {
    /// Catches results a manager delivers while `loadImage` is still running (memory hits), so
    /// the binding can show them before `setImage` returns instead of a main-actor hop later.
    final class SynchronousResults: Sendable {
        private enum Stage {
            case calling([Result<ImageLoadResult, WebImageError>])
            case returned
        }

        private let stage = LockedValue(Stage.calling([]))

        /// Keeps `result` if `loadImage` has not returned yet; `false` means deliver it yourself.
        func hold(_ result: Result<ImageLoadResult, WebImageError>) -> Bool {
            stage.withLock { stage in
                guard case .calling(var held) = stage else { return false }
                held.append(result)
                stage = .calling(held)
                return true
            }
        }

        /// Marks `loadImage` as returned and hands over what was held.
        func release() -> [Result<ImageLoadResult, WebImageError>] {
            stage.withLock { stage in
                defer { stage = .returned }
                if case .calling(let held) = stage { return held }
                return []
            }
        }
    }
}

/// Anything that shows an image — a UI view, a layer, a test double — and wants SDWebImage's
/// `sd_setImage` behaviour through ``webImage``.
///
/// Adopting it takes two members: a ``webImageState`` the target keeps for its whole life
/// (it holds the target's running loads, so they are cancelled when the target goes away),
/// and ``setImage(_:cacheType:)``, which shows an image.
///
/// The protocol is `@MainActor`, because the objects that show images are main-actor UI
/// objects (as `UIView` and `NSView` are in Swift 6): every call on a target, and every
/// completion of ``WebImageBinding``, happens on the main actor, so a target needs no lock
/// and a completion may touch the UI directly. Loads themselves run wherever the manager
/// runs them; only their results hop to the main actor.
///
/// ```swift
/// @MainActor final class Thumbnail: ImageTarget {
///     let webImageState = WebImageState(manager: manager)
///     func setImage(_ image: Image?, cacheType: ImageCacheType) { show(image) }
/// }
/// thumbnail.webImage.setImage(with: url, placeholder: grey)
/// ```
@MainActor
public protocol ImageTarget: AnyObject, Sendable {
    /// The binding layer's per-target record of loads; create one per target and keep it.
    var webImageState: WebImageState { get }

    /// Shows `image`, or nothing for `nil`. `cacheType` is where it came from: `.none` for
    /// placeholders, partial images and downloads, `.disk`/`.memory` for cache hits (a view
    /// may animate only network results, as SDWebImage's transitions do).
    func setImage(_ image: Image?, cacheType: ImageCacheType)
}

extension ImageTarget {
    /// The `sd_setImage` calls for this target: `target.webImage.setImage(with: url)`.
    public var webImage: WebImageBinding<Self> { WebImageBinding(target: self) }
}

/// Runs an action when released: held by the completion a binding hands its manager, it
/// tells the binding when the manager has let go of that completion, after which no
/// result can arrive. The release follows the manager's last call of the completion, on
/// the same thread, so an action that hops to the main actor runs after that call's
/// delivery, which hopped there first. Thread-safe: the action runs once, in `deinit`.
private final class LoadEndWatch: Sendable {
    private let action: @Sendable () -> Void

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = action
    }

    deinit {
        action()
    }
}
