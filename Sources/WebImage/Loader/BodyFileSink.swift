import Dispatch
import Foundation
import NIOCore

/// Streams one response body into a ``DownloadDestination`` as it arrives, with NIO
/// back-pressure: the body is gathered in a buffer of ``Downloader/Configuration/streamingBufferSize``
/// bytes, and each full buffer is written off the event loop while the future handed back
/// to AsyncHTTPClient is pending, so the client reads no more from the socket until the
/// disk took it. A slow disk slows the download; memory stays at one buffer.
///
/// Every blocking step (opening the writer, each write, the commit, the abort) runs in
/// order on the sink's own serial queue (``BlockingIO/makeSerialLane(label:)``, which says
/// why it is not the shared blocking queue), never on an event loop. ``abort()`` queues
/// behind a write in flight, so the temporary file is removed after the last byte that
/// reached it. Thread-safe: the reader calls it from the request's event loop, one call at
/// a time; the lock guards the buffer and the writer, is never contended and is never held
/// across I/O.
final class BodyFileSink: Sendable {
    private struct State {
        var pending: ByteBuffer?
        var writer: (any DownloadBodyWriter)?
        var isEnded = false
    }

    /// Where the body goes; the caller whose destination it is gets the file as it is.
    let destination: any DownloadDestination
    private let lane = BlockingIO.makeSerialLane(label: "swift-web-image.body-file-sink")
    private let bufferSize: Int
    private let state = LockedValue(State())

    /// A sink for a body whose head just arrived. The writer is opened at once, on the lane
    /// (its temporary file exists from the start of the body); a failure to open is thrown
    /// by the first write or the commit, which try again.
    init(destination: any DownloadDestination, bufferSize: Int) {
        self.destination = destination
        self.bufferSize = max(1, bufferSize)
        lane.async { _ = try? self.openWriter() }
    }

    /// Takes the next chunk of the body. The future succeeds at once while the buffer has
    /// room, and when a full buffer was written otherwise; it fails with the writer's error.
    func append(_ chunk: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let full: ByteBuffer? = state.withLock { state in
            var pending = state.pending ?? ByteBuffer()
            if pending.readableBytes == 0, chunk.readableBytes >= bufferSize {
                state.pending = nil
                return chunk
            }
            pending.writeImmutableBuffer(chunk)
            guard pending.readableBytes >= bufferSize else {
                state.pending = pending
                return nil
            }
            state.pending = nil
            return pending
        }
        guard let full else { return eventLoop.makeSucceededVoidFuture() }
        let promise = eventLoop.makePromise(of: Void.self)
        lane.async {
            do {
                try self.write(full)
                promise.succeed()
            } catch {
                promise.fail(Self.failure(error))
            }
        }
        return promise.futureResult
    }

    /// The body is complete: writes what the buffer holds and commits the writer (an empty
    /// body still makes an empty file). The future gives the committed file. Just before
    /// the commit, on the lane, `stillWanted` is asked: every caller may have cancelled
    /// after the last byte arrived, and then the body is dropped, not committed to the
    /// destination of a caller who has left (the future fails with `.cancelled`).
    func finish(on eventLoop: any EventLoop, stillWanted: @escaping @Sendable () -> Bool) -> EventLoopFuture<URL> {
        let rest = state.withLock { state in
            defer { state.pending = nil }
            return state.pending
        }
        let promise = eventLoop.makePromise(of: URL.self)
        lane.async {
            do {
                if let rest { try self.write(rest) }
                guard let writer = try self.openWriter(), stillWanted() else { throw WebImageError.cancelled }
                promise.succeed(try writer.commit())
            } catch {
                self.abortNow()
                promise.fail(Self.failure(error))
            }
        }
        return promise.futureResult
    }

    /// The body will not complete: drops the buffer and, after any write in flight,
    /// removes what was written. Later calls open nothing.
    func abort() {
        state.withLock { state in
            state.isEnded = true
            state.pending = nil
        }
        lane.async { self.abortNow() }
    }

    /// Runs on the lane.
    private func write(_ bytes: ByteBuffer) throws {
        guard let writer = try openWriter() else { throw WebImageError.cancelled }
        try bytes.withUnsafeReadableBytes { try writer.write($0) }
    }

    /// The writer, opened on first use; `nil` once aborted. Runs on the lane.
    private func openWriter() throws -> (any DownloadBodyWriter)? {
        let (writer, isEnded) = state.withLock { ($0.writer, $0.isEnded) }
        if let writer { return writer }
        guard !isEnded else { return nil }
        let opened = try destination.makeWriter()
        state.withLock { $0.writer = opened }
        return opened
    }

    /// Runs on the lane.
    private func abortNow() {
        let writer = state.withLock { state in
            state.isEnded = true
            defer { state.writer = nil }
            return state.writer
        }
        writer?.abort()
    }

    /// The writer's error as the download's (the library's own errors pass through).
    private static func failure(_ error: any Error) -> WebImageError {
        if let error = error as? WebImageError { return error }
        return WebImageError(error)
    }
}
