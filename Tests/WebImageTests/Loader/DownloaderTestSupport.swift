import Foundation
@testable import WebImage

/// Shared set-up for the loader tests: a configuration, a downloader that is always shut
/// down, and a recorder that counts how often each callback ran.
enum LoaderTesting {
    /// A configuration whose idle time-out is `timeout` times ``TestTime/scale`` (so a
    /// sanitizer build's slowdown does not trip it).
    ///
    /// The default is ``outlastingTimeout``: most tests are not about time-outs, and the
    /// 2-s default they had failed them on a starved machine (a 404 with a 1000-byte body,
    /// cookie loads and prefetches "timed out" in the parallel pass, streamed writes waited
    /// longer than that for their lane). A test about a time-out gives its own short one.
    static func config(timeout: Duration = outlastingTimeout, _ change: (inout Downloader.Configuration) -> Void = { _ in }) -> Downloader.Configuration {
        var config = Downloader.Configuration()
        config.timeout = timeout.scaled
        change(&config)
        return config
    }

    /// The idle time-out (unscaled, as ``config(timeout:_:)`` takes it; scale it for a
    /// reply delay) of a test that shows something other than a time-out ended a request: a
    /// cancellation, a refused head; also ``config(timeout:_:)``'s default, for the tests
    /// that are not about time-outs at all. Three times ``endBound``, so the time-out
    /// cannot meet that bound in its place, and under the suites' one-minute time limit, so
    /// a request that only the time-out ends fails the bound with its elapsed time instead
    /// of running into the limit.
    ///
    /// Ten seconds against a 3-s bound was too close: in the parallel pass a test waits for
    /// the cooperative pool (two threads) and for BlockingIO's decode queue, held for
    /// seconds by other tests' decodes, and a follow-up download through a freed slot ended
    /// 6.2 and 7.4 s after the cancel that freed it within milliseconds.
    static let outlastingTimeout: Duration = .seconds(30)

    /// How soon (unscaled; times ``TestTime/scale`` at the check) what a test ends on purpose
    /// (a cancellation, a time-out of a few hundred milliseconds, a refused head) must be
    /// over: a third of ``outlastingTimeout`` and under the 15-s default time-out, yet
    /// several times what a starved 2-core machine took (at most 1.5 s measured, without
    /// the decode; 3.1 s for a 400-ms time-out, downloader shutdown included).
    static let endBound: Duration = .seconds(10)

    /// Runs `body` with a new downloader and shuts it down afterwards, however `body` ends.
    static func withDownloader<T: Sendable>(
        _ config: Downloader.Configuration = LoaderTesting.config(),
        _ body: (Downloader) async throws -> T
    ) async throws -> T {
        let downloader = Downloader(config: config)
        do {
            let value = try await body(downloader)
            try await downloader.shutdown()
            return value
        } catch {
            try await downloader.shutdown()
            throw error
        }
    }

    /// Loads `url` and returns the error it failed with (or `nil` when it succeeded).
    static func error(
        loading url: URL?,
        with downloader: Downloader,
        options: DownloadRequestOptions = DownloadRequestOptions()
    ) async -> WebImageError? {
        do {
            _ = try await downloader.loadImage(from: url, options: options)
            return nil
        } catch {
            return error
        }
    }
}

/// Collects the completions of callback-style downloads and counts each one, so a test
/// can check that every completion ran exactly once.
final class CompletionRecorder: Sendable {
    typealias Outcome = Result<ImageLoaderOutput, WebImageError>
    private let counts = LockedValue<[Int: Int]>([:])
    private let firstCalls = LockedValue<[Int: ContinuousClock.Instant]>([:])
    private let stream: AsyncStream<(Int, Outcome)>
    private let continuation: AsyncStream<(Int, Outcome)>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: (Int, Outcome).self)
    }

    /// The completion handler for caller `index`.
    func completion(_ index: Int) -> Downloader.Completion {
        { [self] result in
            let now = ContinuousClock.now
            counts.withLock { $0[index, default: 0] += 1 }
            firstCalls.withLock { if $0[index] == nil { $0[index] = now } }
            continuation.yield((index, result))
        }
    }

    /// When caller `index`'s completion first ran: what a bound on the downloader's
    /// promptness measures, rather than when a test task, which a starved cooperative pool
    /// can wake seconds later, saw it.
    func firstCall(_ index: Int) -> ContinuousClock.Instant? {
        firstCalls.withLock { $0[index] }
    }

    /// Waits for the first outcome of `count` distinct callers.
    func outcomes(_ count: Int) async -> [Int: Outcome] {
        var outcomes: [Int: Outcome] = [:]
        for await (index, outcome) in stream {
            if outcomes[index] == nil { outcomes[index] = outcome }
            if outcomes.count == count { break }
        }
        return outcomes
    }

    /// How many times each caller's completion ran.
    var callCounts: [Int: Int] { counts.withLock { $0 } }
}

/// Collects the outcomes of ``Downloader/downloadData(with:options:progress:completion:)``
/// calls in the order they came, for tests that register their callers in one go (each
/// call registers before it returns, where a task started to call it could start late).
final class DataOutcomes: Sendable {
    private let outcomes = LockedValue<[Result<DownloadedData, WebImageError>]>([])

    /// The completion handler to pass.
    var record: @Sendable (Result<DownloadedData, WebImageError>) -> Void {
        { [self] result in outcomes.withLock { $0.append(result) } }
    }

    var all: [Result<DownloadedData, WebImageError>] { outcomes.withLock { $0 } }
}

/// A coder that counts its decodes and hands them to a real coder, to check that equal
/// decode options are decoded once.
final class DecodeCountingCoder: ImageCoder {
    let wrapped: any ImageCoder
    private let decodes = LockedValue(0)

    init(wrapping coder: any ImageCoder) {
        wrapped = coder
    }

    var decodeCount: Int { decodes.withLock { $0 } }

    func canDecode(_ data: Data) -> Bool { wrapped.canDecode(data) }

    func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        decodes.withLock { $0 += 1 }
        return try wrapped.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { wrapped.canEncode(to: format) }

    func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try wrapped.encode(image, as: format, options: options)
    }
}

/// Collects progress reports of one load.
final class ProgressLog: Sendable {
    private let reports = LockedValue<[LoadProgress]>([])

    var handler: LoadProgressHandler {
        { [self] progress in reports.withLock { $0.append(progress) } }
    }

    var all: [LoadProgress] { reports.withLock { $0 } }
}
