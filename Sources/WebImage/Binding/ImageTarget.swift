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
