import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import WebImage

/// The demo's image origin: a minimal HTTP/1.1 server on 127.0.0.1 and an ephemeral port
/// that serves the files of one directory, read into memory at start.
///
/// Only `GET /NAME` of a file directly in the directory is answered (200 with the bytes
/// and a content type from the extension); anything else is 404. Thread-safe: the files
/// never change after start, and each connection is its own NIO channel.
final class DemoOrigin: Sendable {
    /// The port the server listens on.
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Starts serving `files` (name → bytes).
    static func start(serving files: [String: Data]) async throws -> DemoOrigin {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FileHandler(files: files))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try await channel.close()
            throw WebImageError.network("the demo origin got no port")
        }
        return DemoOrigin(port: port, channel: channel)
    }

    /// The URL of `name` on this server.
    func url(_ name: String) -> URL? {
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
        return URL(string: "http://127.0.0.1:\(port)/\(escaped)")
    }

    /// Stops listening (open connections end with the event loop group's).
    func stop() async throws {
        try await channel.close()
    }

    /// The content type for a file name, as a web server would send it.
    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png", "apng": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "heic", "heics": "image/heic"
        case "heif": "image/heif"
        case "jxl": "image/jxl"
        case "svg": "image/svg+xml"
        case "pdf": "application/pdf"
        default: "application/octet-stream"
        }
    }
}

/// Answers each request of one connection from the file table.
private final class FileHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let files: [String: Data]
    private var requestHead: HTTPRequestHead?

    init(files: [String: Data]) {
        self.files = files
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
        case .body:
            break
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
        let name = String(path.dropFirst()).removingPercentEncoding ?? ""
        let body = head.method == .GET ? files[name] : nil
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: body == nil ? "text/plain" : DemoOrigin.contentType(of: name))
        headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
        let status: HTTPResponseStatus = body == nil ? .notFound : .ok
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if let body, !body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let write = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            write.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
