import Foundation
import HTTPTypes
import Hummingbird
import WebImage

/// `GET /thumbnail?url=URL&width=W&height=H[&format=jpeg|png|webp|gif]`: the image at URL,
/// fitted inside W×H, in the format asked for (or the best one the client accepts).
struct ThumbnailController: Sendable {
    let manager: ImageManager
    /// Bounds what one request can make the server allocate and encode.
    let maxSide = 2048

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/thumbnail") { request, _ in try await thumbnail(request) }
    }

    func thumbnail(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let text = query.get("url"), let url = URL(string: text),
              let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw HTTPError(.badRequest, message: "url must be an absolute http or https URL")
        }
        guard let width = query.get("width", as: Int.self), let height = query.get("height", as: Int.self),
              (1...maxSide).contains(width), (1...maxSide).contains(height) else {
            throw HTTPError(.badRequest, message: "width and height must be whole numbers from 1 to \(maxSide)")
        }
        let requested = try query.get("format").map(Self.format(named:))

        var context = ImageContext()
        // The thumbnail size is part of the cache key, so each size is cached on its own while
        // the original bytes are kept once on disk and reused for the next size asked for.
        context.thumbnailPixelSize = ImageSize(width: width, height: height)
        let result: ImageLoadResult
        do {
            // `.retryFailed` because the manager otherwise refuses, for the life of the
            // process, a URL that once failed for good (a 404): an image uploaded later must
            // still be served.
            result = try await manager.loadImage(with: url, options: [.retryFailed], context: context)
        } catch {
            // The origin, not the client, is at fault: a bad gateway, with the reason, so the
            // client can tell a 404 at the origin from an image it could not decode.
            throw HTTPError(.badGateway, message: "could not load \(url.absoluteString): \(error)")
        }

        let format = requested ?? Self.negotiatedFormat(accept: request.headers[.accept], hasAlpha: result.image.hasAlpha)
        var options = ImageCoderOptions()
        options.compressionQuality = 0.8
        let data = try CodersManager.shared.encode(result.image, as: format, options: options)

        var headers: HTTPFields = [
            .contentType: format.mimeType,
            // A thumbnail of a URL changes only when the origin's image does; a day is a
            // reasonable bet for an example. Tune it to your origins.
            .cacheControl: "public, max-age=86400",
        ]
        // Without `Vary`, a shared cache could hand a WebP chosen for one client to a client
        // that cannot show it.
        if requested == nil { headers[.vary] = "Accept" }
        // Lets you watch the caches work: "origin" on the first request, "memory" after.
        headers[.imageSource] = result.cacheType == .none ? "origin" : result.cacheType.rawValue
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func format(named name: String) throws -> ImageFormat {
        switch name.lowercased() {
        case "jpeg", "jpg": .jpeg
        case "png": .png
        case "webp": .webp
        case "gif": .gif
        default: throw HTTPError(.badRequest, message: "format must be jpeg, png, webp or gif")
        }
    }

    /// WebP when the client says it takes it (it is the smallest here); otherwise PNG for
    /// images with transparency, which JPEG would flatten, and JPEG for the rest.
    static func negotiatedFormat(accept: String?, hasAlpha: Bool) -> ImageFormat {
        if let accept, accept.lowercased().contains("image/webp") { return .webp }
        return hasAlpha ? .png : .jpeg
    }
}

extension HTTPField.Name {
    /// Where the image came from: "origin", "disk" or "memory".
    static let imageSource = Self("X-Image-Source")!
}
