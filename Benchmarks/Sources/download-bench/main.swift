// download-bench: measures the Downloader against a local origin (nginx, started by
// Benchmarks/download.sh). Four modes:
//
//   download-bench list URLS.txt [--concurrency 6] [--decode] [--lanes]
//       fetches every URL in the file (one per line) through one Downloader with
//       maxConcurrentDownloads = concurrency; prints wall time, bytes, throughput and the
//       process's CPU time (getrusage). Without --decode it fetches bytes only
//       (Downloader.loadData), which is what curl does; with it, each image is decoded too.
//       Every load is started at once and the Downloader's queue holds the waiting ones,
//       as its users do; with --lanes, `concurrency` tasks each load their share one
//       after another instead, exactly as `raw` drives AsyncHTTPClient, so the two differ
//       only in the Downloader.
//
//   download-bench raw URLS.txt [--concurrency 6] [--keep] [--queued]
//       the same list through AsyncHTTPClient alone (delegate API), for reference: the
//       HTTP client's own cost, without the Downloader. Bodies are counted and dropped, or
//       with --keep kept in a Data each, as a downloader's caller needs them. In
//       `concurrency` lanes, or with --queued every request at once, the client's pool
//       (`concurrency` connections) holding the waiting ones as the Downloader's queue does
//       in `list` without --lanes.
//
//   download-bench floor URLS.txt [--concurrency 6] [--queued]
//       the list through CoalescingFloor (CoalescingFloor.swift), driven as `raw` is: the
//       least a coalescing layer over the same client can add (one map of waiters, the
//       status and size checks, nothing else), to show how close to the client any
//       downloader design could come.
//
//   download-bench coalesce URL [--callers 100]
//       starts that many concurrent loads of one URL and prints the total time; the
//       script counts the origin's hits in nginx's access log.
//
// Output lines start with "download-bench:" and use key=value pairs so the script can
// parse them.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import WebImage

#if canImport(Glibc)
import Glibc
#endif

struct Usage: Error, CustomStringConvertible {
    var description: String {
        "usage: download-bench list URLS.txt [--concurrency N] [--decode] [--lanes] | download-bench raw URLS.txt [--concurrency N] [--keep] [--queued] | download-bench floor URLS.txt [--concurrency N] [--queued] | download-bench coalesce URL [--callers N]"
    }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func option(_ name: String, in arguments: [String], default value: Int) throws -> Int {
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard index + 1 < arguments.count, let number = Int(arguments[index + 1]), number > 0 else { throw Usage() }
    return number
}

func seconds(_ duration: Duration) -> Double {
    let (whole, fraction) = duration.components
    return Double(whole) + Double(fraction) / 1e18
}

func runList(_ path: String, concurrency: Int, decode: Bool, lanes: Bool) async throws {
    let urls = try String(contentsOfFile: path, encoding: .utf8)
        .split(whereSeparator: \.isNewline)
        .compactMap { URL(string: String($0)) }
    var config = Downloader.Configuration()
    config.maxConcurrentDownloads = concurrency
    config.timeout = .seconds(30)
    let downloader = Downloader(config: config)
    // One load before the clock starts, as `raw` does with its client: the HTTP client, its
    // event loops and a first connection exist before timing on both sides, so the figures
    // compare throughput, not who creates what inside the timed window.
    if let first = urls.first { _ = try? await downloader.loadData(from: first) }
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    let load = { @Sendable (url: URL) async -> Int? in
        if decode {
            return try? await downloader.loadImage(from: url).data.count
        }
        return try? await downloader.loadData(from: url).data.count
    }
    // Each task gives the bytes it loaded and how many of its loads failed.
    let (bytes, failures) = await withTaskGroup(of: (Int, Int).self) { group in
        if lanes {
            for lane in 0..<concurrency {
                group.addTask {
                    var bytes = 0, failures = 0
                    for index in stride(from: lane, to: urls.count, by: concurrency) {
                        if let count = await load(urls[index]) { bytes += count } else { failures += 1 }
                    }
                    return (bytes, failures)
                }
            }
        } else {
            for url in urls {
                group.addTask { await load(url).map { ($0, 0) } ?? (0, 1) }
            }
        }
        return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
    }
    let elapsed = seconds(ContinuousClock.now - start)
    let cpu = cpuSeconds() - cpuStart
    try await downloader.shutdown()
    let mbps = Double(bytes) / 1_048_576 / elapsed
    print(String(format: "download-bench: mode=%@ files=%d failures=%d bytes=%d seconds=%.3f MBps=%.1f cpu=%.3f",
                 decode ? "decode" : lanes ? "bytes-lanes" : "bytes", urls.count, failures, bytes, elapsed, mbps, cpu))
}

/// Counts body bytes and keeps none: the AsyncHTTPClient floor for `raw` mode.
final class CountingDelegate: HTTPClientResponseDelegate {
    typealias Response = Int
    private let count = Mutex(0)

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        count.withLock { $0 += buffer.readableBytes }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int { count.withLock { $0 } }
}

/// Keeps each body in one `Data`, reserved from the response's `Content-Length`, as our
/// `ResponseReader` does: AsyncHTTPClient doing the work a downloader's caller needs, the
/// reference of issue 15's target (ours at least 0.85x its throughput).
final class KeepingDelegate: HTTPClientResponseDelegate {
    typealias Response = Int
    private let body = Mutex(Data())

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        if let length = head.headers.first(name: "Content-Length").flatMap(Int.init) {
            body.withLock { $0.reserveCapacity(length) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        body.withLock { data in
            buffer.withUnsafeReadableBytes { bytes in
                if let base = bytes.baseAddress { data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
            }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int { body.withLock { $0.count } }
}

/// How `runRaw` loads each URL over the bare client.
enum RawMode: String {
    /// Bodies counted and dropped (``CountingDelegate``).
    case raw
    /// Each body kept in a `Data` (``KeepingDelegate``): issue 15's reference.
    case rawKept = "raw-kept"
    /// Through ``CoalescingFloor``, the least a coalescing layer adds.
    case floor
}

/// The same list through AsyncHTTPClient's delegate API alone (no Downloader: no queue,
/// no coalescing), `concurrency` requests in flight: what the HTTP client costs by itself,
/// to tell it apart from the Downloader's own overhead; `mode` says what is done with
/// each body. In lanes, or `queued`: every request started at once, at most `concurrency`
/// connections.
func runRaw(_ path: String, concurrency: Int, mode: RawMode, queued: Bool) async throws {
    let urls = try String(contentsOfFile: path, encoding: .utf8)
        .split(whereSeparator: \.isNewline)
        .compactMap { URL(string: String($0)) }
    var configuration = HTTPClient.Configuration()
    // Queued, the pool is what holds the waiting requests: it may open only `concurrency`
    // connections, as the Downloader runs only that many downloads.
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = queued ? concurrency : max(8, concurrency)
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    // The same warm-up load as `list`'s (see there).
    if let first = urls.first, let request = try? HTTPClient.Request(url: first) {
        _ = try? await client.execute(request: request, delegate: CountingDelegate()).futureResult.get()
    }
    let coalescing = CoalescingFloor(client: client)
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    // One URL's load in `mode`; the bytes it got.
    let load = { @Sendable (url: URL) async throws -> Int in
        switch mode {
        case .raw:
            return try await client.execute(request: try HTTPClient.Request(url: url), delegate: CountingDelegate()).futureResult.get()
        case .rawKept:
            return try await client.execute(request: try HTTPClient.Request(url: url), delegate: KeepingDelegate()).futureResult.get()
        case .floor:
            return try await coalescing.load(url).count
        }
    }
    let outcome = await withTaskGroup(of: (bytes: Int, failures: Int).self) { group in
        if queued {
            for url in urls {
                group.addTask { (try? await load(url)).map { ($0, 0) } ?? (0, 1) }
            }
        } else {
            for lane in 0..<concurrency {
                group.addTask {
                    var bytes = 0
                    var failures = 0
                    for index in stride(from: lane, to: urls.count, by: concurrency) {
                        if let count = try? await load(urls[index]) { bytes += count } else { failures += 1 }
                    }
                    return (bytes, failures)
                }
            }
        }
        return await group.reduce((0, 0)) { ($0.0 + $1.bytes, $0.1 + $1.failures) }
    }
    let elapsed = seconds(ContinuousClock.now - start)
    let cpu = cpuSeconds() - cpuStart
    try await client.shutdown()
    print(String(format: "download-bench: mode=%@ files=%d failures=%d bytes=%d seconds=%.3f MBps=%.1f cpu=%.3f",
                 mode.rawValue + (queued ? "-queued" : ""), urls.count, outcome.1, outcome.0, elapsed, Double(outcome.0) / 1_048_576 / elapsed, cpu))
}

func runCoalesce(_ url: URL, callers: Int) async throws {
    let downloader = Downloader(config: Downloader.Configuration())
    let start = ContinuousClock.now
    let successes = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<callers {
            group.addTask { (try? await downloader.loadImage(from: url)) != nil }
        }
        return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    let elapsed = seconds(ContinuousClock.now - start)
    try await downloader.shutdown()
    print(String(format: "download-bench: mode=coalesce callers=%d successes=%d seconds=%.3f", callers, successes, elapsed))
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "list" where arguments.count >= 2:
        try await runList(arguments[1], concurrency: try option("--concurrency", in: arguments, default: 6),
                          decode: arguments.contains("--decode"), lanes: arguments.contains("--lanes"))
    case "raw" where arguments.count >= 2:
        try await runRaw(arguments[1], concurrency: try option("--concurrency", in: arguments, default: 6),
                         mode: arguments.contains("--keep") ? .rawKept : .raw, queued: arguments.contains("--queued"))
    case "floor" where arguments.count >= 2:
        try await runRaw(arguments[1], concurrency: try option("--concurrency", in: arguments, default: 6), mode: .floor,
                         queued: arguments.contains("--queued"))
    case "coalesce" where arguments.count >= 2:
        guard let url = URL(string: arguments[1]) else { throw Usage() }
        try await runCoalesce(url, callers: try option("--callers", in: arguments, default: 100))
    default:
        throw Usage()
    }
} catch {
    FileHandle.standardError.write(Data("download-bench: \(error)\n".utf8))
    exit(2)
}
