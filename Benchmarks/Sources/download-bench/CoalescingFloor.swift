import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The least a coalescing downloader over AsyncHTTPClient can do: callers of one URL wait
/// on one transfer (one dictionary of waiters, one hash per join and one per completion),
/// the status code is checked, the body is kept in a `Data` up to a size limit, and every
/// waiter's continuation is resumed from the transfer's completion. No queue, priorities,
/// cancellation, progress, cookies, validators, modifiers, metrics, events or time-outs.
///
/// Not a downloader anyone should use: a measuring stick. `download-bench floor` runs the
/// list through it in lanes, beside `raw --keep`, to show what coalescing itself costs on
/// top of the HTTP client, and so how much of the Downloader's overhead any design could
/// remove.
final class CoalescingFloor: Sendable {
    struct BadStatus: Error { let code: UInt }
    struct TooLarge: Error {}

    private let client: HTTPClient
    private let waiters = Mutex<[URL: [CheckedContinuation<Data, any Error>]]>([:])
    private let limit: Int

    init(client: HTTPClient, limit: Int = 64 << 20) {
        self.client = client
        self.limit = limit
    }

    func load(_ url: URL) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            let first = waiters.withLock { waiters -> Bool in
                if waiters[url] != nil {
                    waiters[url]?.append(continuation)
                    return false
                }
                waiters[url] = [continuation]
                return true
            }
            if first { start(url) }
        }
    }

    private func start(_ url: URL) {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url)
        } catch {
            finish(url, .failure(error))
            return
        }
        client.execute(request: request, delegate: BoundedBody(limit: limit)).futureResult.whenComplete { result in
            self.finish(url, result)
        }
    }

    private func finish(_ url: URL, _ result: Result<Data, any Error>) {
        let waiting = waiters.withLock { $0.removeValue(forKey: url) } ?? []
        for continuation in waiting { continuation.resume(with: result) }
    }

    /// Keeps the body in one `Data` reserved from `Content-Length`, refusing a status
    /// outside 200–299 and a body past the limit.
    final class BoundedBody: HTTPClientResponseDelegate {
        typealias Response = Data
        private let body = Mutex(Data())
        private let limit: Int

        init(limit: Int) { self.limit = limit }

        func didReceiveHead(task: HTTPClient.Task<Data>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            guard (200..<300).contains(head.status.code) else {
                return task.eventLoop.makeFailedFuture(BadStatus(code: head.status.code))
            }
            if let length = head.headers.first(name: "Content-Length").flatMap(Int.init) {
                guard length <= limit else { return task.eventLoop.makeFailedFuture(TooLarge()) }
                body.withLock { $0.reserveCapacity(length) }
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<Data>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            let fits = body.withLock { data -> Bool in
                guard data.count + buffer.readableBytes <= limit else { return false }
                buffer.withUnsafeReadableBytes { bytes in
                    if let base = bytes.baseAddress { data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
                }
                return true
            }
            return fits ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(TooLarge())
        }

        func didFinishRequest(task: HTTPClient.Task<Data>) throws -> Data { body.withLock { $0 } }
    }
}
