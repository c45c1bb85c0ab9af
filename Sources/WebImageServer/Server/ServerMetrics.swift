import Foundation
import Prometheus

/// The server's Prometheus metrics, in a registry of its own so that several servers in
/// one process (tests, an application mounting the routes twice) do not mix their counts.
///
/// Names (all prefixed `webimage_`): `requests_total{status}`, `errors_total{reason}`,
/// `request_duration_seconds`, `queue_duration_seconds`, `download_duration_seconds`,
/// `processing_duration_seconds` (histograms), `requests_in_flight`, `queue_length`,
/// `workers_busy`, `result_cache_hits_total{level}`, `result_cache_misses_total`,
/// `source_bytes_total`, `resident_memory_bytes`. README lists them. Thread-safe.
public final class ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry = PrometheusCollectorRegistry()

    private static let buckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
    ]

    let requestDuration: DurationHistogram
    let queueDuration: DurationHistogram
    let downloadDuration: DurationHistogram
    let processingDuration: DurationHistogram
    let inFlight: Gauge
    let queueLength: Gauge
    let workersBusy: Gauge
    let cacheMisses: Counter
    let sourceBytes: Counter
    let residentMemory: Gauge
    /// The counters every hit touches, made once: the registry's lookup by name and labels
    /// takes a lock and builds strings, too much for the fastest path.
    private let okResponses: Counter
    private let memoryHits: Counter
    private let diskHits: Counter

    /// Creates the metrics, each at zero.
    public init() {
        requestDuration = Self.histogram(registry, "request_duration", "Time from a request's arrival to its response")
        queueDuration = Self.histogram(registry, "queue_duration", "Time a request waited for a worker")
        downloadDuration = Self.histogram(registry, "download_duration", "Time spent fetching a source")
        processingDuration = Self.histogram(registry, "processing_duration", "Time spent decoding, transforming and encoding")
        inFlight = registry.makeGauge(descriptor: Self.name("requests_in_flight", "Requests being answered now"), labels: [])
        queueLength = registry.makeGauge(descriptor: Self.name("queue_length", "Image jobs waiting for a worker"), labels: [])
        workersBusy = registry.makeGauge(descriptor: Self.name("workers_busy", "Image jobs running now"), labels: [])
        cacheMisses = registry.makeCounter(descriptor: Self.name("result_cache_misses_total", "Result cache lookups that found nothing"), labels: [])
        sourceBytes = registry.makeCounter(descriptor: Self.name("source_bytes_total", "Bytes of sources fetched from origins"), labels: [])
        residentMemory = registry.makeGauge(descriptor: Self.name("resident_memory_bytes", "Resident set size of the process"), labels: [])
        okResponses = registry.makeCounter(descriptor: Self.requestsTotal, labels: [("status", "200")])
        memoryHits = registry.makeCounter(descriptor: Self.cacheHitsTotal, labels: [("level", ByteCache.Level.memory.rawValue)])
        diskHits = registry.makeCounter(descriptor: Self.cacheHitsTotal, labels: [("level", ByteCache.Level.disk.rawValue)])
    }

    private static var requestsTotal: MetricNameDescriptor { name("requests_total", "Responses by HTTP status") }
    private static var cacheHitsTotal: MetricNameDescriptor { name("result_cache_hits_total", "Result cache hits by level") }

    /// Counts a response by status, and a failure by its reason label.
    func recordResponse(status: Int, errorLabel: String?) {
        if status == 200 {
            okResponses.increment()
        } else {
            registry.makeCounter(descriptor: Self.requestsTotal, labels: [("status", String(status))]).increment()
        }
        if let errorLabel {
            registry.makeCounter(descriptor: Self.name("errors_total", "Failed requests by reason"), labels: [("reason", errorLabel)]).increment()
        }
    }

    /// Counts a result cache hit at `level`.
    func recordCacheHit(_ level: ByteCache.Level) {
        switch level {
        case .memory: memoryHits.increment()
        case .disk: diskHits.increment()
        }
    }

    /// The Prometheus text exposition, with the gauges read at this moment refreshed.
    func render(queue: JobQueue) -> [UInt8] {
        queueLength.set(Double(queue.waiting))
        workersBusy.set(Double(queue.running))
        if let rss = Self.residentSetSize() { residentMemory.set(Double(rss)) }
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    /// The resident set size from `/proc/self/statm` (pages × page size), or `nil` where
    /// there is no procfs.
    static func residentSetSize() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func name(_ metric: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "webimage", metricName: metric, unitName: "", helpText: help)
    }

    private static func histogram(_ registry: PrometheusCollectorRegistry, _ metric: String, _ help: String) -> DurationHistogram {
        registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(namespace: "webimage", metricName: metric, unitName: "seconds", helpText: help),
            labels: [], buckets: buckets
        )
    }
}
