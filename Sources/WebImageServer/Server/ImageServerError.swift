import WebImage

/// Why a request to the image server failed: an HTTP status, a one-line reason for the
/// response body, and a short label for the metrics.
///
/// Every failure the server can meet maps to exactly one of these, so a client always gets
/// a 4xx or 5xx with a reason and never a dropped connection. The statuses say what HTTP
/// means by them, which is not always imgproxy's choice: a malformed URL or option is a 400
/// here (imgproxy answers 404), a source over the byte limit a 413 (imgproxy 422), a format
/// the server cannot write a 400 (imgproxy 422), and an origin's 4xx other than 404 and 410
/// a 502 (imgproxy passes it on). Signatures (403), missing sources (404), the pixel limit
/// (422) and time-outs agree; an animation over the frame limit is cut, as imgproxy cuts
/// it, not refused.
///
/// ```swift
/// throw ImageServerError.badOptions("unknown option \"crop2\"")   // 400
/// ```
public struct ImageServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status code sent.
    public let status: Int
    /// A short, stable name for the kind of failure (the `reason` label of
    /// `webimage_errors_total`): `options`, `signature`, `source_missing`, ...
    public let label: String
    /// One line for the response body and the log.
    public let message: String
    /// What only the log gets: for a source, the address a name resolved to, the resolver's
    /// or the connection's own words. Sent to a client, they would map the server's
    /// network for whoever can name a source (split-horizon DNS answers, which ports
    /// refuse), as imgproxy keeps them out of its answers too.
    public let detail: String?

    /// Creates an error; prefer the named factories below. Line breaks and other control
    /// characters in `message` (a reason often quotes the request, whose percent-decoded
    /// parts can hold any character) are written as `\u{D}` escapes, so the reason stays
    /// one line in the body and the log.
    public init(status: Int, label: String, message: String, detail: String? = nil) {
        self.status = status
        self.label = label
        self.message = Self.oneLine(message)
        self.detail = detail.map(Self.oneLine)
    }

    /// `text` with each line break or control character escaped.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Self.breaksLine) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if Self.breaksLine(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    public var description: String { "\(status) \(label): \(message)" + (detail.map { " (\($0))" } ?? "") }

    /// 400: the URL or one of its options is malformed or not supported.
    public static func badOptions(_ message: String) -> Self { Self(status: 400, label: "options", message: message) }
    /// 403: the signature is missing, malformed or wrong.
    public static func badSignature(_ message: String) -> Self { Self(status: 403, label: "signature", message: message) }
    /// 403: the `Authorization` header does not carry the configured secret.
    public static let badSecret = Self(status: 403, label: "secret", message: "missing or wrong Authorization secret")
    /// 404: the source is not one the server may fetch: outside `WEBIMAGE_ALLOWED_SOURCES`,
    /// or at an address the source-address policy closes. A 404 as imgproxy answers both
    /// (so the status tells a prober no more than a missing source would; the reason in the
    /// body says which rule refused it, and ``detail``, for the log only, where a name led).
    public static func sourceForbidden(_ message: String, detail: String? = nil) -> Self {
        Self(status: 404, label: "source_forbidden", message: message, detail: detail)
    }
    /// 404: the origin has no such source.
    public static func sourceMissing(_ message: String, detail: String? = nil) -> Self {
        Self(status: 404, label: "source_missing", message: message, detail: detail)
    }
    /// 413: the source is larger than the byte limit.
    public static func sourceTooLarge(_ message: String) -> Self { Self(status: 413, label: "source_too_large", message: message) }
    /// 422: the source has more pixels than the limit allows, or is not an image
    /// the server can decode.
    public static func unprocessable(_ message: String) -> Self { Self(status: 422, label: "source_unprocessable", message: message) }
    /// 429: every worker is busy and the queue behind them is full.
    public static let queueFull = Self(status: 429, label: "queue_full", message: "too many requests: the processing queue is full")
    /// 502: the origin failed (a refused connection, a 5xx, a broken body).
    public static func sourceFailed(_ message: String, detail: String? = nil) -> Self {
        Self(status: 502, label: "source_failed", message: message, detail: detail)
    }
    /// 503: the request did not finish within the processing time-out (queue time included).
    public static let processingTimedOut = Self(status: 503, label: "timeout", message: "processing timed out")
    /// 504: the origin did not deliver the source within the download time-out.
    public static let downloadTimedOut = Self(status: 504, label: "download_timeout", message: "source download timed out")
    /// 499 (nginx's code): the client closed its connection before the answer was ready, so
    /// the job was abandoned. The client never sees it; the metrics and logs do.
    public static let clientClosedRequest = Self(status: 499, label: "client_closed", message: "the client closed the connection")
    /// 500: encoding or another step of ours failed.
    public static func internalFailure(_ message: String) -> Self { Self(status: 500, label: "internal", message: message) }

    /// The server's answer to a library error met while fetching the source: a missing
    /// source is a 404, limits are 413/422, a slow origin 504, anything else 502.
    static func fetching(_ error: WebImageError) -> Self {
        switch error {
        case .invalidDownloadStatusCode(let code) where code == 404 || code == 410:
            return .sourceMissing("the origin answered \(code)")
        case .invalidDownloadStatusCode(let code):
            return .sourceFailed("the origin answered \(code)")
        case .responseTooLarge(let limit):
            return .sourceTooLarge("the source is larger than \(limit) bytes")
        case .timedOut:
            return .downloadTimedOut
        case .invalidURL(let url):
            return .badOptions("invalid source URL: \(url)")
        default:
            // A refused connection, a TLS failure, a broken body: their words (errno, the
            // address) go to the log only.
            return .sourceFailed("the source could not be fetched", detail: error.description)
        }
    }

    /// The server's answer to a library error met while decoding, transforming or encoding:
    /// limits are 413/422, a source that is not a usable image 422, impossible options 400,
    /// anything else 500.
    static func processing(_ error: WebImageError) -> Self {
        switch error {
        case .imageTooLarge(let width, let height, let limit):
            return .unprocessable("the source's \(width)x\(height) exceeds the limit of \(limit) pixels")
        case .badImageData(let reason):
            return .unprocessable("the source is not a usable image: \(reason)")
        case .unsupportedFormat(let format):
            return .unprocessable("the server cannot process \(format.rawValue) images")
        case .transformFailed(let reason):
            return .badOptions(reason)
        case .responseTooLarge(let limit):
            // A decoder's own byte limit (16 MiB for SVG, 128 MiB for PDF), below the
            // source limit the download enforced.
            return .sourceTooLarge("the source is larger than the \(limit) bytes its decoder accepts")
        default:
            return .internalFailure(error.description)
        }
    }
}
