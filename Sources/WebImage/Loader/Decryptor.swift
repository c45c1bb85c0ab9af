import Foundation

/// Turns the downloaded bytes into image bytes before decoding (SDWebImage's
/// `SDWebImageDownloaderDecryptor`), for servers that encrypt or wrap their images.
///
/// Returning `nil` fails the download with ``WebImageError/badImageData(_:)``. The
/// decrypted bytes are what ``ImageLoaderOutput/data`` holds. Progressive partial images
/// are not made when a decryptor is set (the bytes so far are not image bytes).
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
}
