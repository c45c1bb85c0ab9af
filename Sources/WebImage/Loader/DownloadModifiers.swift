import Foundation
import NIOHTTP1

/// Changes a request before it is sent (SDWebImage's `SDWebImageDownloaderRequestModifier`).
///
/// Returning `nil` refuses the request: the download fails with
/// ``WebImageError/invalidDownloadOperation`` and nothing is sent. The closure runs once
/// per network request, on an arbitrary thread, so it must be thread-safe.
///
/// ```swift
/// var options = DownloadRequestOptions()
/// options.requestModifier = .headers(["Authorization": "Bearer \(token)"])
/// ```
public struct RequestModifier: Sendable {
    private let body: @Sendable (DownloadRequest) -> DownloadRequest?

    /// Creates a modifier from a closure.
    public init(_ modify: @escaping @Sendable (DownloadRequest) -> DownloadRequest?) {
        body = modify
    }

    /// A modifier that sets (replacing) each of `headers`.
    public static func headers(_ headers: [String: String]) -> RequestModifier {
        RequestModifier { request in
            var request = request
            for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
            return request
        }
    }

    /// A modifier that changes the method and body (for example a `POST` image service).
    public static func method(_ method: HTTPMethod, body: Data?) -> RequestModifier {
        RequestModifier { request in
            var request = request
            request.method = method
            request.body = body
            return request
        }
    }

    /// Applies the modifier; `nil` means the request is refused.
    public func modified(_ request: DownloadRequest) -> DownloadRequest? {
        body(request)
    }
}

/// Changes a response head before it is checked (SDWebImage's
/// `SDWebImageDownloaderResponseModifier`), for servers that send the wrong status or
/// content type.
///
/// Returning `nil` refuses the response: the download stops and fails with
/// ``WebImageError/invalidDownloadResponse``. Runs on an arbitrary thread.
///
/// ```swift
/// var options = DownloadRequestOptions()
/// options.responseModifier = ResponseModifier { response in
///     response.statusCode == 202 ? nil : response
/// }
/// ```
public struct ResponseModifier: Sendable {
    private let body: @Sendable (DownloadResponse) -> DownloadResponse?

    /// Creates a modifier from a closure.
    public init(_ modify: @escaping @Sendable (DownloadResponse) -> DownloadResponse?) {
        body = modify
    }

    /// Applies the modifier; `nil` means the response is refused.
    public func modified(_ response: DownloadResponse) -> DownloadResponse? {
        body(response)
    }
}

/// Turns the downloaded bytes into image bytes before decoding (SDWebImage's
/// `SDWebImageDownloaderDecryptor`), for servers that encrypt or wrap their images.
///
/// Returning `nil` fails the download with ``WebImageError/badImageData(_:)``. The
/// decrypted bytes are what ``ImageLoaderOutput/data`` holds. Progressive partial images
/// are not made when a decryptor is set (the bytes so far are not image bytes). As in
/// SDWebImage, it applies whatever the loader: the `file:` and `data:` loaders run it too
/// (with no response head).
///
/// ```swift
/// var options = DownloadRequestOptions()
/// options.decryptor = .base64
/// ```
public struct Decryptor: Sendable {
    private let body: @Sendable (Data, DownloadResponse?) -> Data?

    /// Creates a decryptor from a closure that receives the body and the response head.
    public init(_ decrypt: @escaping @Sendable (Data, DownloadResponse?) -> Data?) {
        body = decrypt
    }

    /// Decodes a base64 body (whitespace and line breaks allowed), as SDWebImage's
    /// `base64Decryptor`.
    public static let base64 = Decryptor { data, _ in
        Data(base64Encoded: data, options: .ignoreUnknownCharacters)
    }

    /// Applies the decryptor; `nil` means the bytes could not be decrypted.
    public func decrypted(_ data: Data, response: DownloadResponse?) -> Data? {
        body(data, response)
    }

    /// Applies the decryptor for a loader: `nil` becomes ``WebImageError/badImageData(_:)``,
    /// the one error every loader reports for it. `response` is `nil` for bytes that came
    /// without a head (a file, a `data:` URL).
    func decryptedOrThrow(_ data: Data, response: DownloadResponse? = nil) throws(WebImageError) -> Data {
        guard let decrypted = body(data, response) else { throw .badImageData("the decryptor returned no data") }
        return decrypted
    }
}
