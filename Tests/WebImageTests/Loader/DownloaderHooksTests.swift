import Foundation
import Logging
import Testing
@testable import WebImage

/// Progress, progressive partial images, events, metrics, modifiers, the decryptor and
/// the logs.
@Suite("Downloader hooks", .timeLimit(.minutes(1)))
struct DownloaderHooksTests {
    let png: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
    }

    @Test func progressStartsUnknownThenExpectedThenEndsComplete() async throws {
        let reply = LoopbackServer.Reply.drip(png, chunkSize: 2000, interval: .milliseconds(10), contentType: "image/png")
        try await LoopbackServer.with(["/a.png": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let log = ProgressLog()
                _ = try await downloader.loadImage(from: server.url("/a.png"), progress: log.handler)
                let reports = log.all
                #expect(reports.count >= 4)
                let start = try #require(reports.first)
                #expect(start.receivedSize == 0 && start.expectedSize == -1)
                let response = try #require(reports.dropFirst().first)
                #expect(response.receivedSize == 0 && response.expectedSize == png.count)
                let final = try #require(reports.last)
                #expect(final.receivedSize == png.count && final.expectedSize == png.count)
                #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.receivedSize <= $1.receivedSize })
                #expect(reports.filter { $0.receivedSize == png.count }.count == 1)
                #expect(reports.allSatisfy { $0.partialImage == nil })
            }
        }
    }

    @Test func minimumProgressIntervalThrottlesChunkReportsButKeepsTheFinalOne() async throws {
        let reply = LoopbackServer.Reply.drip(png, chunkSize: 500, interval: .milliseconds(5), contentType: "image/png")
        try await LoopbackServer.with(["/a.png": reply]) { server in
            let config = LoaderTesting.config { $0.minimumProgressInterval = 0.4 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let log = ProgressLog()
                _ = try await downloader.loadImage(from: server.url("/a.png"), progress: log.handler)
                let chunkReports = log.all.dropFirst(2).dropLast()
                // 24 chunks, but the fraction may only grow by 0.4 between reports: at most 2.
                #expect(chunkReports.count <= 2)
                #expect(log.all.last?.receivedSize == png.count)
            }
        }
    }

    @Test func progressiveLoadDeliversPartialImagesBeforeTheFinalOne() async throws {
        // A 400x300 baseline JPEG: a prefix decodes to the rows received so far. The server
        // holds the rest of the body back (trickling a byte at a time, so progress reports
        // keep coming) until the test has seen a partial image, however slow decoding is.
        let jpeg = try Corpus.data("TestICCProfile.jpg")
        let gate = ReplyGate()
        let reply = LoopbackServer.Reply.gated(jpeg, firstPart: jpeg.count / 2, gate: gate, interval: .milliseconds(20), contentType: "image/jpeg")
        try await LoopbackServer.with(["/large.jpg": reply]) { server in
            let config = LoaderTesting.config { $0.partialImageDecoder = { PrefixPartialImageDecoder(coder: JPEGCoder()) } }
            try await LoaderTesting.withDownloader(config) { downloader in
                var options = DownloadRequestOptions()
                options.progressiveLoad = true
                options.decodeOptions.thumbnailPixelSize = ImageSize(width: 200, height: 200)
                let log = ProgressLog()
                let handler = log.handler
                let result = try await downloader.loadImage(from: server.url("/large.jpg"), options: options) { progress in
                    handler(progress)
                    if progress.partialImage != nil { gate.open() }
                }
                let partials = log.all.compactMap(\.partialImage)
                #expect(!partials.isEmpty)
                #expect(partials.allSatisfy { $0.isIncremental && $0.size.width == 200 })
                #expect(!result.image.isIncremental)
                #expect(result.image.size.width == 200)
            }
        }
    }

    @Test func prefixDecoderMakesIncrementalImagesOfTruncatedJPEGOnly() throws {
        let large = try Corpus.data("TestImageLarge.jpg")
        var options = ImageCoderOptions()
        options.thumbnailPixelSize = ImageSize(width: 128, height: 128)
        let decoder = PrefixPartialImageDecoder(coder: CodersManager.shared)
        let partial = try #require(decoder.partialImage(from: large.prefix(large.count / 2), options: options))
        #expect(partial.isIncremental)
        #expect(partial.size.width == 128)
        #expect(decoder.partialImage(from: png.prefix(png.count / 2), options: options) == nil)
        #expect(decoder.partialImage(from: large.prefix(10), options: options) == nil)
    }

    @Test func eventsReportStartResponseStopAndFinishWithMetrics() async throws {
        try await LoopbackServer.with(["/r": .redirect(to: "/a.png"), "/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let events = downloader.events()
                let url = server.url("/r")
                _ = try await downloader.loadImage(from: url)
                var iterator = events.makeAsyncIterator()
                var seen: [DownloadEvent] = []
                for _ in 0..<4 { if let event = await iterator.next() { seen.append(event) } }
                #expect(seen.count == 4)
                #expect(seen.first == .started(url))
                #expect(seen.dropFirst().first == .receivedResponse(url, statusCode: 200, expectedSize: png.count))
                guard case .stopped(_, let stopped) = seen.dropFirst(2).first,
                      case .finished(_, let finished) = seen.last else {
                    Issue.record("expected stopped then finished, got \(seen)")
                    return
                }
                #expect(stopped == finished)
                #expect(finished.bytesReceived == png.count)
                #expect(finished.redirectCount == 1)
                #expect(finished.statusCode == 200)
                #expect(try #require(finished.timeToFirstByte) <= finished.totalTime)
            }
        }
    }

    @Test func failedDownloadStopsWithoutFinishing() async throws {
        try await LoopbackServer.with([:]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let events = downloader.events()
                _ = await LoaderTesting.error(loading: server.url("/missing"), with: downloader)
                try await downloader.shutdown()
                var kinds: [String] = []
                for await event in events {
                    switch event {
                    case .started: kinds.append("started")
                    case .receivedResponse: kinds.append("response")
                    case .stopped: kinds.append("stopped")
                    case .finished: kinds.append("finished")
                    }
                }
                #expect(kinds == ["started", "stopped"])
            }
        }
    }

    @Test func requestModifierCanChangeMethodAndHeaders() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                var options = DownloadRequestOptions()
                let headers = RequestModifier.headers(["X-Token": "abc"])
                options.requestModifier = RequestModifier { request in
                    var request = headers.modified(request)
                    request?.method = .POST
                    request?.body = Data("{}".utf8)
                    return request
                }
                _ = try await downloader.loadImage(from: server.url("/a.png"), options: options)
                #expect(server.requests.first?.method == "POST")
                #expect(server.requests.first?.header("X-Token") == "abc")
            }
        }
    }

    @Test func requestModifierReturningNilSendsNothing() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                var options = DownloadRequestOptions()
                options.requestModifier = RequestModifier { _ in nil }
                let error = await LoaderTesting.error(loading: server.url("/a.png"), with: downloader, options: options)
                #expect(error == .invalidDownloadOperation)
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test func responseModifierCanRescueAResponseOrRefuseIt() async throws {
        try await LoopbackServer.with(["/a.png": .status(404, body: png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                var rescue = DownloadRequestOptions()
                rescue.responseModifier = ResponseModifier { response in
                    var response = response
                    response.statusCode = 200
                    return response
                }
                let result = try await downloader.loadImage(from: server.url("/a.png"), options: rescue)
                #expect(result.image.size.width == 300)
                var refuse = DownloadRequestOptions()
                refuse.responseModifier = ResponseModifier { _ in nil }
                let error = await LoaderTesting.error(loading: server.url("/a.png"), with: downloader, options: refuse)
                #expect(error == .invalidDownloadResponse)
            }
        }
    }

    @Test func base64DecryptorDecodesAWrappedImage() async throws {
        let wrapped = Data(png.base64EncodedString(options: .lineLength76Characters).utf8)
        try await LoopbackServer.with(["/a.b64": .ok(wrapped, contentType: "text/plain")]) { server in
            try await LoaderTesting.withDownloader { downloader in
                var options = DownloadRequestOptions()
                options.decryptor = .base64
                let result = try await downloader.loadImage(from: server.url("/a.b64"), options: options)
                #expect(result.data == png)
                #expect(result.image.size.width == 300)
                options.decryptor = Decryptor { _, _ in nil }
                let error = await LoaderTesting.error(loading: server.url("/a.b64"), with: downloader, options: options)
                guard case .badImageData = error else {
                    Issue.record("expected badImageData, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    /// SDWebImage's downloader-level hooks: every download uses them unless its own
    /// options name one.
    @Test func theConfigurationsHooksApplyUnlessTheRequestNamesItsOwn() async throws {
        let wrapped = Data(png.base64EncodedString().utf8)
        try await LoopbackServer.with(["/a.b64": .status(404, body: wrapped)]) { server in
            let config = LoaderTesting.config {
                $0.requestModifier = .headers(["X-Tenant": "downloader"])
                $0.responseModifier = ResponseModifier { response in
                    var response = response
                    response.statusCode = 200
                    return response
                }
                $0.decryptor = .base64
            }
            try await LoaderTesting.withDownloader(config) { downloader in
                let result = try await downloader.loadImage(from: server.url("/a.b64"))
                #expect(result.data == png)
                #expect(server.requests.last?.header("X-Tenant") == "downloader")
                var own = DownloadRequestOptions()
                own.requestModifier = .headers(["X-Tenant": "request"])
                own.responseModifier = ResponseModifier { _ in nil }
                let refused = await LoaderTesting.error(loading: server.url("/a.b64?2"), with: downloader, options: own)
                #expect(refused == .invalidDownloadResponse, "the request's response modifier replaced the downloader's")
                #expect(server.requests.last?.header("X-Tenant") == "request")
                var ownDecryptor = DownloadRequestOptions()
                ownDecryptor.decryptor = Decryptor { _, _ in nil }
                let undecrypted = await LoaderTesting.error(loading: server.url("/a.b64?3"), with: downloader, options: ownDecryptor)
                #expect(undecrypted == .badImageData("the decryptor returned no data"))
            }
        }
    }

    @Test func logsNeitherCredentialsNorQueryNorAuthorization() async throws {
        let lines = LogCapture()
        let routes: [String: LoopbackServer.Reply] = ["/a.png": .basicAuth(user: "ann", password: "hunter2", then: .ok(png))]
        try await LoopbackServer.with(routes) { server in
            let config = LoaderTesting.config {
                $0.username = "ann"
                $0.password = "hunter2"
                $0.logger = Logger(label: "test") { _ in lines.handler }
                $0.logger.logLevel = .debug
            }
            try await LoaderTesting.withDownloader(config) { downloader in
                let url = try #require(URL(string: "http://ann:hunter2@127.0.0.1:\(server.port)/a.png?token=topsecret"))
                _ = try await downloader.loadImage(from: url)
            }
        }
        let text = lines.all.joined(separator: "\n")
        #expect(text.contains("/a.png"))
        #expect(!text.contains("hunter2"))
        #expect(!text.contains("topsecret"))
        #expect(!text.contains(Data("ann:hunter2".utf8).base64EncodedString()))
    }
}

/// A swift-log handler that keeps every line, to check what the downloader logs.
final class LogCapture: Sendable {
    private let lines = LockedValue<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    var handler: LogHandler { Handler(capture: self) }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            capture.append("\(event.message) \(fields)")
        }
    }
}
