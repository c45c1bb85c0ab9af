import Metrics
import Synchronization

/// The manager's swift-metrics instruments, made once per manager so a load only
/// increments them.
///
/// Counters: `webimage_loads_total` by `source` (network, disk, memory),
/// `webimage_errors_total` by `kind` (the ``WebImageError`` case), and
/// `webimage_downloaded_bytes_total`. Timers: `webimage_decode_duration` (a download's
/// decode, or a disk hit's read and decode) and `webimage_transform_duration`.
///
/// Memory hits only bump an atomic; the count is handed to the `memory` counter by the
/// next load that is not a memory hit (or by ``flushMemoryHits()``), so the hot path
/// never calls into a metrics backend. Thread-safe.
final class ImageManagerMetrics: Sendable {
    private let networkLoads: Counter
    private let diskLoads: Counter
    private let memoryLoads: Counter
    private let bytesDownloaded: Counter
    private let decodeTimer: Metrics.Timer
    private let transformTimer: Metrics.Timer
    private let pendingMemoryHits = Atomic<Int>(0)

    init() {
        networkLoads = Counter(label: "webimage_loads_total", dimensions: [("source", "network")])
        diskLoads = Counter(label: "webimage_loads_total", dimensions: [("source", "disk")])
        memoryLoads = Counter(label: "webimage_loads_total", dimensions: [("source", "memory")])
        bytesDownloaded = Counter(label: "webimage_downloaded_bytes_total")
        decodeTimer = Metrics.Timer(label: "webimage_decode_duration")
        transformTimer = Metrics.Timer(label: "webimage_transform_duration")
    }

    /// Counts a memory hit without touching the backend.
    @inline(__always)
    func memoryHit() {
        pendingMemoryHits.add(1, ordering: .relaxed)
    }

    /// Hands the memory hits counted so far to the backend.
    func flushMemoryHits() {
        let hits = pendingMemoryHits.exchange(0, ordering: .relaxed)
        if hits > 0 { memoryLoads.increment(by: hits) }
    }

    /// Counts a finished load from `source`.
    func loaded(from source: ImageCacheType) {
        flushMemoryHits()
        switch source {
        case .none: networkLoads.increment()
        case .disk: diskLoads.increment()
        case .memory, .all: memoryLoads.increment()
        }
    }

    /// Counts a failed load by the kind of its error.
    func failed(_ error: WebImageError) {
        flushMemoryHits()
        Counter(label: "webimage_errors_total", dimensions: [("kind", Self.kind(of: error))]).increment()
    }

    func downloaded(bytes: Int) {
        bytesDownloaded.increment(by: bytes)
    }

    func decoded(in duration: Duration) {
        decodeTimer.recordNanoseconds(duration.nanoseconds)
    }

    func transformed(in duration: Duration) {
        transformTimer.recordNanoseconds(duration.nanoseconds)
    }

    /// The error's case name, a bounded set of label values.
    static func kind(of error: WebImageError) -> String {
        switch error {
        case .invalidURL: "invalidURL"
        case .badImageData: "badImageData"
        case .cacheNotModified: "cacheNotModified"
        case .blackListed: "blackListed"
        case .invalidDownloadOperation: "invalidDownloadOperation"
        case .invalidDownloadStatusCode: "invalidDownloadStatusCode"
        case .cancelled: "cancelled"
        case .invalidDownloadResponse: "invalidDownloadResponse"
        case .invalidDownloadContentType: "invalidDownloadContentType"
        case .imageTooLarge: "imageTooLarge"
        case .unsupportedFormat: "unsupportedFormat"
        case .encodingFailed: "encodingFailed"
        case .timedOut: "timedOut"
        case .network: "network"
        case .responseTooLarge: "responseTooLarge"
        case .notInCache: "notInCache"
        case .transformFailed: "transformFailed"
        case .proxyAuthenticationRequired: "proxyAuthenticationRequired"
        case .invalidConfiguration: "invalidConfiguration"
        }
    }
}

private extension Duration {
    /// The duration in whole nanoseconds (durations here are far below the 292 years that overflow).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
