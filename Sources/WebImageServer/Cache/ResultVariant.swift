import WebImage

/// Which of a URL's results a response is: the part of the result cache's key after the
/// signed path.
///
/// A URL that names its format, or any URL while format negotiation is off, has one result
/// whatever the client sends. A URL that leaves the format open while negotiation is on has
/// one result per negotiated format (AVIF, WebP, or the source's own for a client that
/// offers neither), and its responses carry `Vary: Accept`. The key says which, so that a
/// hit can be found from the signed path and the `Accept` header alone, before the URL is
/// parsed.
struct ResultVariant: Equatable {
    /// The format to encode; `nil` keeps the source's.
    let format: ImageFormat?
    /// Whether the result depends on the client's `Accept` header.
    let varies: Bool

    /// - Parameters:
    ///   - explicit: the format the URL names, if any.
    ///   - offered: the format negotiated from the client's `Accept` header, if any.
    ///   - negotiates: whether format negotiation is on.
    init(explicit: ImageFormat?, offered: ImageFormat?, negotiates: Bool) {
        if let explicit {
            (format, varies) = (explicit, false)
        } else if negotiates {
            (format, varies) = (offered, true)
        } else {
            (format, varies) = (nil, false)
        }
    }

    /// The result cache key for this variant of the URL whose signed part is `signedPart`.
    /// The URL alone fixes a result that does not vary, so its key ends at the `|`.
    func key(for signedPart: Substring) -> String {
        var key = String(signedPart) + "|"
        if varies { key += format?.rawValue ?? "source" }
        return key
    }
}
