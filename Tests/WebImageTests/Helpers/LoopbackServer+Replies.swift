import Foundation
import NIOCore
import NIOHTTP1

/// How ``LoopbackServer`` carries out each ``LoopbackServer/Reply``.
extension LoopbackServer {
    typealias Outbound = NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>

    func answer(_ reply: Reply, to request: Request, outbound: Outbound, channel: any Channel) async throws {
        switch reply {
        case .ok(let body, let contentType, let extra):
            var headers = extra
            if let contentType { headers.append(("Content-Type", contentType)) }
            try await send(status: 200, headers: headers, body: body, outbound: outbound)
        case .status(let code, let body, let extra):
            try await send(status: code, headers: extra, body: body, outbound: outbound)
        case .drip(let body, let chunkSize, let interval, let contentType):
            try await writeHead(200, [("Content-Type", contentType), ("Content-Length", "\(body.count)")], outbound)
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + max(1, chunkSize))
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body[offset..<end]))))
                offset = end
                if offset < body.count { try await pause(for: interval, while: channel) }
            }
            try await outbound.write(.end(nil))
        case .chunked(let body, let chunkSize):
            // Without Content-Length, NIO's encoder frames the body with chunked encoding.
            try await writeHead(200, [("Content-Type", "image/png")], outbound)
            for start in stride(from: 0, to: body.count, by: max(1, chunkSize)) {
                let end = min(body.count, start + max(1, chunkSize))
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body[start..<end]))))
            }
            try await outbound.write(.end(nil))
        case .stallAfterHeaders(let length):
            try await writeHead(200, [("Content-Type", "image/png"), ("Content-Length", "\(length)")], outbound)
            try await pause(for: .seconds(3600), while: channel)
        case .stallBeforeHeaders:
            try await pause(for: .seconds(3600), while: channel)
        case .resetMidBody(let body, let after):
            try await writeHead(200, [("Content-Type", "image/png"), ("Content-Length", "\(body.count)")], outbound)
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body.prefix(after)))))
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            if let socket = channel as? any SocketOptionProvider {
                try await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            }
            try await channel.close()
        case .wrongContentLength(let body, let claimed):
            try await writeHead(200, [("Content-Type", "image/png"), ("Content-Length", "\(claimed)")], outbound)
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
            try await channel.close()
        case .redirect(let location, let code):
            try await send(status: code, headers: [("Location", location)], body: Data(), outbound: outbound)
        case .basicAuth(let user, let password, let then):
            let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            if request.header("Authorization") == expected {
                try await answer(then, to: request, outbound: outbound, channel: channel)
            } else {
                try await send(status: 401, headers: [("WWW-Authenticate", "Basic realm=\"test\"")], body: Data(), outbound: outbound)
            }
        case .delayed(let delay, let then):
            try await pause(for: delay, while: channel)
            try await answer(then, to: request, outbound: outbound, channel: channel)
        case .gated(let body, let firstPart, let gate, let interval, let contentType):
            try await writeHead(200, [("Content-Type", contentType), ("Content-Length", "\(body.count)")], outbound)
            var offset = max(0, min(firstPart, body.count - 1))
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body[..<offset]))))
            // Until the gate opens, or the safety net's time passed (see gatedHoldLimit).
            let holdEnd = ContinuousClock.now + LoopbackServer.gatedHoldLimit
            while !gate.isOpen, ContinuousClock.now < holdEnd, offset < body.count - 1 {
                try await pause(for: interval, while: channel)
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body[offset..<offset + 1]))))
                offset += 1
            }
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body[offset...]))))
            try await outbound.write(.end(nil))
        }
    }

    private func send(status: Int, headers: [(String, String)], body: Data, outbound: Outbound) async throws {
        try await writeHead(status, headers + [("Content-Length", "\(body.count)")], outbound)
        if !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        try await outbound.write(.end(nil))
    }

    private func writeHead(_ status: Int, _ headers: [(String, String)], _ outbound: Outbound) async throws {
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: HTTPHeaders(headers))
        try await outbound.write(.head(head))
    }
}
