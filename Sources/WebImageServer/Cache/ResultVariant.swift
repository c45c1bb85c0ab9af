import WebImage

/// Which of a URL's results a response is: the part of the result cache's key after the
/// signed path.
///
/// A URL that names its format, or any URL while format negotiation is off, has one result
/// whatever the client sends. A URL that leaves the format open while negotiation is on has
/// one result per set of negotiated formats the client allows (AVIF and WebP, WebP alone,
/// or none: then the preferred formats decide), and its responses carry `Vary: Accept`. A
/// set rather than its first format, because an animation skips AVIF for the next one. The
/// key says which, so that a hit can be found from the signed path and the `Accept` header
/// alone, before the URL is parsed.
struct ResultVariant: Equatable {
    /// The format the URL names, which the result has whatever the client sends.
    let format: ImageFormat?
    /// The formats negotiated from the client's `Accept` header, best first.
    let negotiated: [ImageFormat]
    /// Whether the result depends on the client's `Accept` header.
    let varies: Bool

    /// - Parameters:
    ///   - explicit: the format the URL names, if any.
    ///   - offered: the formats negotiated from the client's `Accept` header, best first.
    ///   - negotiates: whether format negotiation is on.
    init(explicit: ImageFormat?, offered: [ImageFormat], negotiates: Bool) {
        if let explicit {
            (format, negotiated, varies) = (explicit, [], false)
        } else if negotiates {
            (format, negotiated, varies) = (nil, offered, true)
        } else {
            (format, negotiated, varies) = (nil, [], false)
        }
    }

    /// The result cache key for this variant of the URL whose signed part is `signedPart`.
    /// The URL alone fixes a result that does not vary, so its key ends at the `|`.
    func key(for signedPart: Substring) -> String {
        var key = String(signedPart) + "|"
        if varies { key += negotiated.isEmpty ? "source" : negotiated.map(\.rawValue).joined(separator: "+") }
        return key
    }
}
