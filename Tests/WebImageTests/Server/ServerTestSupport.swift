import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import WebImage
@testable import WebImageServer

/// A real ``ImageServer`` listening on 127.0.0.1 (port 0) for the length of a test, with a
/// real HTTP client pointed at it. Start one with ``with(_:body:)``: it stops the server
/// (cancelling its `run` task, which shuts it down) and the client however the body ends.
struct RunningImageServer: Sendable {
    /// One response as the client received it.
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        /// The first value of header `name` (case-insensitive).
        func header(_ name: String) -> String? { headers.first(name: name) }
        /// The body as text (error bodies, /health, /metrics).
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let server: ImageServer
    let port: Int
    let metricsPort: Int?
    let client: HTTPClient

    /// Starts a server with `configuration` (and `fetcher`, else the default one), runs
    /// `body`, then stops both.
    static func with<T: Sendable>(
        _ configuration: ImageServer.Configuration,
        fetcher: (any SourceFetching)? = nil,
        body: (RunningImageServer) async throws -> T
    ) async throws -> T {
        let server = try ImageServer(configuration: configuration, fetcher: fetcher)
        let (ports, continuation) = AsyncStream.makeStream(of: (Int, Int?).self)
        let task = Task {
            // Finishing the stream however `run` ends means a failed bind cannot leave the
            // test waiting for a port forever.
            defer { continuation.finish() }
            try await server.run { port, metricsPort in
                continuation.yield((port, metricsPort))
            }
        }
        var iterator = ports.makeAsyncIterator()
        guard let (port, metricsPort) = await iterator.next() else {
            // `run` ended before listening: its error is the test's.
            try await task.value
            throw HarnessError.neverListened
        }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let running = RunningImageServer(server: server, port: port, metricsPort: metricsPort, client: client)
        do {
            let value = try await body(running)
            try await running.stop(task)
            return value
        } catch {
            try? await running.stop(task)
            throw error
        }
    }

    /// Starts a loopback origin with `routes` and a server with `configuration`.
    static func with<T: Sendable>(
        origin routes: [String: LoopbackServer.Reply],
        _ configuration: ImageServer.Configuration,
        body: (LoopbackServer, RunningImageServer) async throws -> T
    ) async throws -> T {
        try await LoopbackServer.with(routes) { origin in
            try await with(configuration) { server in try await body(origin, server) }
        }
    }

    private func stop(_ task: Task<Void, any Error>) async throws {
        try await client.shutdown()
        task.cancel()
        // Cancellation ends `run` (which then shuts the server's threads down); an error
        // it throws on the way out is not the test's concern, only that it returns.
        _ = await task.result
    }

    enum HarnessError: Error { case neverListened, noMetricsListener }

    /// `http://127.0.0.1:PORT` + `path` (already percent-encoded as it should go out).
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Sends one request and reads the whole response.
    func request(
        _ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(20)
    ) async throws -> Reply {
        try await Self.send(client: client, url: url(path), method: method, headers: headers, timeout: timeout)
    }

    /// `GET /metrics` from the Prometheus listener.
    func metrics() async throws -> String {
        guard let metricsPort else { throw HarnessError.noMetricsListener }
        return try await Self.send(client: client, url: "http://127.0.0.1:\(metricsPort)/metrics", method: .GET, headers: [], timeout: .seconds(10)).text
    }

    static func send(client: HTTPClient, url: String, method: HTTPMethod, headers: [(String, String)], timeout: TimeAmount) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds * Int64(TestTime.scale)))
        let body = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }
}

// MARK: URLs

/// Builds imgproxy URLs for a source on the loopback origin.
enum ImageURL {
    /// `/insecure/OPTIONS/plain/PERCENT-ENCODED-URL[@ext]`.
    static func plain(_ source: URL, _ options: [String] = [], extension ext: String? = nil, signature: String = "insecure") -> String {
        "/" + signature + signedPlainPart(source, options, extension: ext)
    }

    /// The part of a plain URL a signature signs: `/OPTIONS/plain/URL[@ext]`.
    static func signedPlainPart(_ source: URL, _ options: [String] = [], extension ext: String? = nil) -> String {
        // Everything but letters and digits percent-encoded, as imgproxy's docs advise.
        let encoded = source.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? source.absoluteString
        return options.map { "/" + $0 }.joined() + "/plain/" + encoded + (ext.map { "@" + $0 } ?? "")
    }

    /// `/insecure/OPTIONS/BASE64URL-split-by-slash[.ext]`.
    static func base64(_ source: URL, _ options: [String] = [], extension ext: String? = nil, signature: String = "insecure") -> String {
        var encoded = URLSigner.base64URL(Array(source.absoluteString.utf8))
        var pieces: [Substring] = []
        while !encoded.isEmpty {
            pieces.append(Substring(encoded.prefix(16)))
            encoded = String(encoded.dropFirst(16))
        }
        return "/" + signature + options.map { "/" + $0 }.joined() + "/" + pieces.joined(separator: "/") + (ext.map { "." + $0 } ?? "")
    }
}

// MARK: Configurations

extension ImageServer.Configuration {
    /// Settings for a test server: loopback, port 0, unsigned, sources on loopback allowed
    /// (the test origins listen there), no result cache, short time-outs, a small worker
    /// pool, and a cache folder of its own (used only when a test turns a disk level on).
    static func testing(_ change: (inout Self) -> Void = { _ in }) -> Self {
        var configuration = Self()
        configuration.bind = "127.0.0.1:0"
        configuration.allowsUnsigned = true
        configuration.sourceAddresses.allowsLoopback = true
        configuration.workers = 2
        configuration.queueSize = 16
        configuration.timeout = Duration.seconds(15).scaled
        configuration.downloadTimeout = Duration.seconds(10).scaled
        // Long enough that no test's client finds a pooled connection closed under it.
        configuration.keepAliveTimeout = Duration.seconds(60).scaled
        configuration.writeResponseTimeout = Duration.seconds(60).scaled
        configuration.resultCache = []
        configuration.memoryCacheSize = 16 << 20
        configuration.gracefulStopTimeout = .seconds(2)
        configuration.cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-server-tests-\(UUID().uuidString)", isDirectory: true)
        change(&configuration)
        return configuration
    }
}

// MARK: Images

/// Synthetic sources whose pixels say where they came from.
enum ServerImages {
    static let red = RGBAColor(red: 255, green: 0, blue: 0)
    static let green = RGBAColor(red: 0, green: 255, blue: 0)
    static let blue = RGBAColor(red: 0, green: 0, blue: 255)
    static let yellow = RGBAColor(red: 255, green: 255, blue: 0)

    /// A `width`×`height` image in four flat quadrants: red top-left, green top-right, blue
    /// bottom-left, yellow bottom-right.
    static func quadrants(width: Int, height: Int) throws -> PixelBuffer {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let color = y < height / 2 ? (x < width / 2 ? red : green) : (x < width / 2 ? blue : yellow)
                let index = (y * width + x) * 4
                bytes[index] = color.red
                bytes[index + 1] = color.green
                bytes[index + 2] = color.blue
            }
        }
        return try PixelBuffer(width: width, height: height, bytes: bytes)
    }

    /// ``quadrants(width:height:)`` as PNG bytes.
    static func quadrantsPNG(width: Int, height: Int) throws -> Data {
        try CodersManager.shared.encode(Image(pixels: quadrants(width: width, height: height), hasAlpha: false), as: .png)
    }

    /// A PNG whose left half is fully transparent and right half opaque blue.
    static func halfTransparentPNG(width: Int, height: Int) throws -> Data {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in width / 2..<width {
                let index = (y * width + x) * 4
                bytes[index + 2] = 255
                bytes[index + 3] = 255
            }
        }
        return try CodersManager.shared.encode(Image(pixels: PixelBuffer(width: width, height: height, bytes: bytes)), as: .png)
    }

    /// A PNG whose IHDR says `width`×`height` RGBA followed by a few bytes of a zlib stream
    /// (a valid start, cut short) and IEND: a few dozen bytes that claim gigabytes.
    static func pngClaiming(width: UInt32, height: UInt32) -> Data {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func chunk(_ type: String, _ payload: [UInt8]) {
            let typed = Array(type.utf8) + payload
            out += be32(UInt32(payload.count)) + typed + be32(FixtureChecksum.crc32(typed))
        }
        // Width, height, bit depth 8, colour type 6 (RGBA), deflate, adaptive filter, no interlace.
        chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
        chunk("IDAT", [0x78, 0x9C, 0xED, 0xC1, 0x01, 0x0D, 0x00, 0x00])
        chunk("IEND", [])
        return Data(out)
    }

    /// Whether `color` is within `tolerance` of `expected` on each of R, G and B.
    static func isClose(_ color: RGBAColor, to expected: RGBAColor, tolerance: Int = 40) -> Bool {
        abs(Int(color.red) - Int(expected.red)) <= tolerance
            && abs(Int(color.green) - Int(expected.green)) <= tolerance
            && abs(Int(color.blue) - Int(expected.blue)) <= tolerance
    }
}

/// The value of an unlabelled (or exactly labelled) sample in a Prometheus text exposition:
/// `name 3.0` → 3.
func prometheusValue(_ text: String, _ sample: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
        return Double(line.dropFirst(sample.count + 1))
    }
    return nil
}

/// How much the process's resident memory may grow while a gigapixel claim is refused.
/// The measure is the whole process's, and the other suites run beside the test: under
/// AddressSanitizer (its shadow memory and quarantine) their growth alone reached 203 MB
/// in one CI run. Decoding the 30000×30000 claim would take 3.6 GB, so a bound of 1 GiB
/// still tells a refusal from a decode.
let residentGrowthBoundForARefusal = 1 << 30

/// The resident set size of this process, from `/proc/self/statm`.
func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
