import Foundation
import Testing
@testable import WebImage

/// The downloader against a server that misbehaves on purpose: every case ends with the
/// right typed error (or image) within its time-out, and the completion runs once.
@Suite("Downloader against a misbehaving server", .timeLimit(.minutes(1)))
struct DownloaderMisbehavingServerTests {
    let png: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
    }

    /// Loads `path` from a server with `routes`, as ``outcome(of:config:options:)`` does,
    /// then hands the server to `check`.
    private func outcome(
        _ path: String,
        routes: [String: LoopbackServer.Reply],
        config: Downloader.Configuration = LoaderTesting.config(),
        options: DownloadRequestOptions = DownloadRequestOptions(),
        check: (LoopbackServer) -> Void = { _ in }
    ) async throws -> (result: Result<ImageLoaderOutput, WebImageError>, elapsed: Duration) {
        try await LoopbackServer.with(routes) { server in
            let outcome = try await self.outcome(of: server.url(path), config: config, options: options)
            check(server)
            return outcome
        }
    }

    /// Downloads `url` and returns the outcome and the time from the call to its completion
    /// (not to the test's seeing it, nor the downloader's shutdown: on a starved machine
    /// those took seconds more), and checks that the completion ran once.
    private func outcome(
        of url: URL,
        config: Downloader.Configuration,
        options: DownloadRequestOptions = DownloadRequestOptions()
    ) async throws -> (result: Result<ImageLoaderOutput, WebImageError>, elapsed: Duration) {
        let recorder = CompletionRecorder()
        let (result, elapsed) = try await LoaderTesting.withDownloader(config) { downloader in
            let start = ContinuousClock.now
            downloader.downloadImage(with: url, options: options, completion: recorder.completion(0))
            let result = try #require(await recorder.outcomes(1)[0])
            return (result, (recorder.firstCall(0) ?? ContinuousClock.now) - start)
        }
        #expect(recorder.callCounts == [0: 1])
        return (result, elapsed)
    }

    private func error(_ result: Result<ImageLoaderOutput, WebImageError>) -> WebImageError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func slowDripWithinTheIdleTimeoutSucceedsEvenWhenTheTotalIsLonger() async throws {
        // 30 chunks 250 ms apart: each gap is well inside the 6-s idle limit, while the
        // whole body takes longer than the limit. (A 1.5-s limit, and then a 4-s one, was met
        // by a gap on a starved machine, where the server's turns came seconds apart.)
        let reply = LoopbackServer.Reply.drip(png, chunkSize: 400, interval: .milliseconds(250).scaled, contentType: "image/png")
        let (result, elapsed) = try await outcome("/drip.png", routes: ["/drip.png": reply], config: LoaderTesting.config(timeout: .seconds(6)))
        #expect(try result.get().image.size == ImageSize(width: 300, height: 300))
        #expect(elapsed > .seconds(6).scaled)
    }

    @Test func stallAfterHeadersTimesOut() async throws {
        let reply = LoopbackServer.Reply.stallAfterHeaders(contentLength: 5000)
        let (result, elapsed) = try await outcome("/stall.png", routes: ["/stall.png": reply], config: LoaderTesting.config(timeout: .milliseconds(400)))
        #expect(error(result) == .timedOut)
        #expect(elapsed < LoaderTesting.endBound.scaled)
    }

    @Test func stallBeforeHeadersTimesOut() async throws {
        let (result, elapsed) = try await outcome("/stall.png", routes: ["/stall.png": .stallBeforeHeaders], config: LoaderTesting.config(timeout: .milliseconds(400)))
        #expect(error(result) == .timedOut)
        #expect(elapsed < LoaderTesting.endBound.scaled)
    }

    @Test func headTrickledAByteAtATimeTimesOutAtTheIdleLimit() async throws {
        // A byte every 50 ms never leaves the socket idle for the 400 ms limit; the
        // downloader counts only whole heads and body parts as activity, so it gives up
        // once no head came for that long.
        try await TricklingHeadServer.with(interval: .milliseconds(50)) { server in
            let (result, elapsed) = try await outcome(of: server.url, config: LoaderTesting.config(timeout: .milliseconds(400)))
            #expect(error(result) == .timedOut)
            #expect(elapsed < LoaderTesting.endBound.scaled)
        }
    }

    @Test func stallAfterARedirectTimesOut() async throws {
        // The idle limit watches the whole exchange: the redirected request too.
        let routes: [String: LoopbackServer.Reply] = ["/r1": .redirect(to: "/stall.png"), "/stall.png": .stallBeforeHeaders]
        let (result, elapsed) = try await outcome("/r1", routes: routes, config: LoaderTesting.config(timeout: .milliseconds(400)))
        #expect(error(result) == .timedOut)
        #expect(elapsed < LoaderTesting.endBound.scaled)
    }

    @Test func connectionResetMidBodyIsANetworkError() async throws {
        let (result, _) = try await outcome("/reset.png", routes: ["/reset.png": .resetMidBody(png, after: 4000)])
        guard case .network = error(result) else {
            Issue.record("expected a network error, got \(result)")
            return
        }
    }

    @Test func contentLengthLongerThanTheBodyIsANetworkError() async throws {
        let reply = LoopbackServer.Reply.wrongContentLength(png, claimedLength: png.count + 5000)
        let (result, _) = try await outcome("/short.png", routes: ["/short.png": reply])
        guard case .network = error(result) else {
            Issue.record("expected a network error, got \(result)")
            return
        }
    }

    @Test func contentLengthShorterThanTheBodyGivesTruncatedDataThatFailsToDecode() async throws {
        let reply = LoopbackServer.Reply.wrongContentLength(png, claimedLength: 1000)
        let (result, _) = try await outcome("/long.png", routes: ["/long.png": reply])
        guard case .badImageData = error(result) else {
            Issue.record("expected badImageData, got \(result)")
            return
        }
    }

    @Test func notModifiedIsAnUnacceptableStatusByDefault() async throws {
        let (result, _) = try await outcome("/a.png", routes: ["/a.png": .status(304)])
        #expect(error(result) == .invalidDownloadStatusCode(304))
    }

    @Test func notModifiedWithoutCachedDataIsCacheNotModifiedWhen304IsAcceptable() async throws {
        let config = LoaderTesting.config { $0.acceptableStatusCodes = Set(200..<400) }
        let (result, _) = try await outcome("/a.png", routes: ["/a.png": .status(304)], config: config)
        #expect(error(result) == .cacheNotModified)
    }

    @Test func notModifiedWithCachedDataDecodesTheCachedData() async throws {
        var options = DownloadRequestOptions()
        options.cachedData = png
        let (result, _) = try await outcome("/a.png", routes: ["/a.png": .status(304)], options: options)
        #expect(try result.get().image.size == ImageSize(width: 300, height: 300))
        #expect(try result.get().data == png)
    }

    @Test(arguments: [404, 500, 503])
    func errorStatusesFailWithTheirCode(_ code: Int) async throws {
        let (result, _) = try await outcome("/a.png", routes: ["/a.png": .status(code, body: Data("oops".utf8))])
        #expect(error(result) == .invalidDownloadStatusCode(code))
    }

    @Test func unknownPathIs404() async throws {
        let (result, _) = try await outcome("/missing.png", routes: [:])
        #expect(error(result) == .invalidDownloadStatusCode(404))
    }

    @Test func followsARedirectChainAndReportsTheFinalURL() async throws {
        let routes: [String: LoopbackServer.Reply] = [
            "/r1": .redirect(to: "/r2", status: 301),
            "/r2": .redirect(to: "/r3", status: 302),
            "/r3": .redirect(to: "/a.png", status: 307),
            "/a.png": .ok(png, contentType: "image/png"),
        ]
        let (result, _) = try await outcome("/r1", routes: routes) { server in
            #expect(server.requests.map(\.path) == ["/r1", "/r2", "/r3", "/a.png"])
        }
        let loaded = try result.get()
        #expect(loaded.url.path == "/a.png")
        #expect(loaded.metrics?.redirectCount == 3)
        #expect(loaded.image.size.width == 300)
    }

    /// A `Location` whose port no connection can use (`:70000` on an IP address) fails the
    /// download with `invalidURL`, and the process lives: AsyncHTTPClient followed it and
    /// trapped converting the port, so one header from a hostile origin ended the process.
    @Test(arguments: ["http://127.0.0.1:70000/a.png", "http://127.0.0.1:99999999999999999999/a.png", "/a.png:x", "http://127.0.0.1:0/"])
    func aRedirectToAPortNoConnectionCanUseFails(_ location: String) async throws {
        let routes: [String: LoopbackServer.Reply] = ["/r": .redirect(to: location), "/a.png:x": .ok(png)]
        let (result, _) = try await outcome("/r", routes: routes)
        if location.hasPrefix("/") {
            // A relative Location keeps the origin's port: followed as usual (the colon is
            // in the path).
            #expect(throws: Never.self) { try result.get() }
            return
        }
        guard case .invalidURL(let message) = error(result) else {
            Issue.record("expected invalidURL, got \(String(describing: error(result)))")
            return
        }
        #expect(message.contains("redirect"), "\(message)")
    }

    /// The same URL asked for directly is refused before any request.
    @Test(arguments: ["http://127.0.0.1:70000/a.png", "http://127.0.0.1:99999999999999999999/a.png"])
    func aURLWithAPortNoConnectionCanUseIsInvalid(_ text: String) async throws {
        let url = try #require(URL(string: text))
        try await LoaderTesting.withDownloader { downloader in
            #expect(await LoaderTesting.error(loading: url, with: downloader) == .invalidURL(text))
        }
    }

    @Test func redirectLoopFails() async throws {
        let routes: [String: LoopbackServer.Reply] = ["/l1": .redirect(to: "/l2"), "/l2": .redirect(to: "/l1")]
        let (result, _) = try await outcome("/l1", routes: routes)
        guard case .network(let reason, let underlying) = error(result) else {
            Issue.record("expected a network error, got \(String(describing: error(result)))")
            return
        }
        #expect(reason == "redirect loop")
        #expect(underlying != nil, "the HTTP client's error is kept")
    }

    @Test func redirectsBeyondTheLimitFail() async throws {
        let routes: [String: LoopbackServer.Reply] = [
            "/r1": .redirect(to: "/r2"), "/r2": .redirect(to: "/r3"), "/r3": .redirect(to: "/a.png"), "/a.png": .ok(png),
        ]
        let config = LoaderTesting.config { $0.maximumRedirects = 2 }
        let (result, _) = try await outcome("/r1", routes: routes, config: config)
        guard case .network(let reason, let underlying) = error(result) else {
            Issue.record("expected a network error, got \(String(describing: error(result)))")
            return
        }
        #expect(reason == "too many redirects")
        #expect(underlying != nil, "the HTTP client's error is kept")
    }

    @Test func basicAuthIsSentOnceWhenTheServerAsks() async throws {
        let routes: [String: LoopbackServer.Reply] = ["/a.png": .basicAuth(user: "ann", password: "s3cret", then: .ok(png))]
        let config = LoaderTesting.config {
            $0.username = "ann"
            $0.password = "s3cret"
        }
        let (result, _) = try await outcome("/a.png", routes: routes, config: config) { server in
            #expect(server.requests.count == 2)
            #expect(server.requests.first?.header("Authorization") == nil)
            #expect(server.requests.last?.header("Authorization") == "Basic " + Data("ann:s3cret".utf8).base64EncodedString())
        }
        #expect(try result.get().image.size.width == 300)
    }

    @Test func wrongBasicCredentialsAreTriedOnceThenFailWith401() async throws {
        let routes: [String: LoopbackServer.Reply] = ["/a.png": .basicAuth(user: "ann", password: "s3cret", then: .ok(png))]
        let config = LoaderTesting.config {
            $0.username = "ann"
            $0.password = "wrong"
        }
        let (result, _) = try await outcome("/a.png", routes: routes, config: config) { server in
            #expect(server.requests.count == 2)
        }
        #expect(error(result) == .invalidDownloadStatusCode(401))
    }

    /// A review's finding: the configured credential went to any 401, one with no
    /// challenge at all, and one from a host a redirect led to (sent back to the first
    /// host). Now only a Basic challenge for the URL asked for is answered.
    @Test func basicCredentialsAnswerOnlyABasicChallengeOfTheURLAskedFor() async throws {
        let config = LoaderTesting.config {
            $0.username = "ann"
            $0.password = "s3cret"
        }
        let (unchallenged, _) = try await outcome("/a.png", routes: ["/a.png": .status(401)], config: config) { server in
            #expect(server.requests.count == 1)
        }
        #expect(error(unchallenged) == .invalidDownloadStatusCode(401))

        let guarded: [String: LoopbackServer.Reply] = ["/a.png": .basicAuth(user: "ann", password: "s3cret", then: .ok(png))]
        try await LoopbackServer.with(guarded) { other in
            let routes: [String: LoopbackServer.Reply] = ["/r": .redirect(to: other.url("/a.png").absoluteString)]
            let (redirected, _) = try await outcome("/r", routes: routes, config: config) { first in
                #expect(first.requests.allSatisfy { $0.header("Authorization") == nil })
            }
            #expect(error(redirected) == .invalidDownloadStatusCode(401))
            #expect(other.requests.count == 1)
            #expect(other.requests.allSatisfy { $0.header("Authorization") == nil })
        }
    }

    /// A review's finding: the only time limit was an idle one, so a server sending a few
    /// bytes just inside it held a download (and a slot) for as long as it liked.
    /// `maximumDuration` bounds the whole download, as curl's `--max-time` does.
    @Test func aSlowButSteadyServerIsCutOffByTheMaximumDuration() async throws {
        let body = Data(repeating: 7, count: 100_000)
        let routes: [String: LoopbackServer.Reply] = ["/slow.png": .drip(body, chunkSize: 100, interval: .milliseconds(50), contentType: "image/png")]
        let config = LoaderTesting.config {
            $0.timeout = .seconds(10)
            $0.maximumDuration = .milliseconds(500)
        }
        let (result, elapsed) = try await outcome("/slow.png", routes: routes, config: config)
        #expect(error(result) == .timedOut)
        #expect(elapsed < .seconds(30), "the 50 s body was not read to its end")
    }

    @Test func withoutCredentials401FailsAfterOneRequest() async throws {
        let routes: [String: LoopbackServer.Reply] = ["/a.png": .basicAuth(user: "ann", password: "s3cret", then: .ok(png))]
        let (result, _) = try await outcome("/a.png", routes: routes) { server in
            #expect(server.requests.count == 1)
        }
        #expect(error(result) == .invalidDownloadStatusCode(401))
    }

    @Test func wrongContentTypeFailsOnlyWhenTypesAreRestricted() async throws {
        let routes: [String: LoopbackServer.Reply] = ["/a.png": .ok(png, contentType: "text/html; charset=utf-8")]
        let (lenient, _) = try await outcome("/a.png", routes: routes)
        #expect(try lenient.get().image.format == .png)
        let config = LoaderTesting.config { $0.acceptableContentTypes = ["image/png", "image/jpeg"] }
        let (strict, _) = try await outcome("/a.png", routes: routes, config: config)
        #expect(error(strict) == .invalidDownloadContentType("text/html"))
    }

    @Test func announcedBodyLargerThanTheLimitFailsBeforeReadingIt() async throws {
        // The head announces 100 kB, then no byte of the body comes: only the head can give
        // the refusal, and promptly. Were the announced length not checked, the bytes would
        // be waited for until the 30-s time-out (and a body that came would be stopped by the
        // same error as it grew, which is why the server sends none).
        let config = LoaderTesting.config(timeout: LoaderTesting.outlastingTimeout) { $0.maximumResponseSize = 5000 }
        let reply = LoopbackServer.Reply.stallAfterHeaders(contentLength: 100_000)
        let (result, elapsed) = try await outcome("/a.png", routes: ["/a.png": reply], config: config)
        #expect(error(result) == .responseTooLarge(limit: 5000))
        #expect(elapsed < LoaderTesting.endBound.scaled)
    }

    @Test func unannouncedBodyGrowingPastTheLimitIsStopped() async throws {
        let config = LoaderTesting.config { $0.maximumResponseSize = 5000 }
        let (result, _) = try await outcome("/a.png", routes: ["/a.png": .chunked(png, chunkSize: 1000)], config: config) { server in
            #expect(server.requests.count == 1)
        }
        #expect(error(result) == .responseTooLarge(limit: 5000))
    }

    @Test func chunkedBodyWithinTheLimitDownloads() async throws {
        let (result, _) = try await outcome("/a.png", routes: ["/a.png": .chunked(png, chunkSize: 1000)])
        #expect(try result.get().data == png)
    }

    @Test(arguments: [Data(), Data("<html>not an image</html>".utf8)])
    func emptyOrUndecodableBodyIsBadImageData(_ body: Data) async throws {
        let (result, _) = try await outcome("/a.png", routes: ["/a.png": .ok(body)])
        guard case .badImageData = error(result) else {
            Issue.record("expected badImageData, got \(result)")
            return
        }
    }

    @Test func selfSignedCertificateIsRejectedByDefault() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)], tls: true) { server in
            try await LoaderTesting.withDownloader { downloader in
                let error = await LoaderTesting.error(loading: server.url("/a.png"), with: downloader)
                guard case .network = error else {
                    Issue.record("expected a TLS network error, got \(String(describing: error))")
                    return
                }
            }
            #expect(server.requests.isEmpty)
        }
    }

    @Test func selfSignedCertificateIsAcceptedWhenAllowed() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)], tls: true) { server in
            try await LoaderTesting.withDownloader { downloader in
                var options = DownloadRequestOptions()
                options.allowInvalidCertificates = true
                let result = try await downloader.loadImage(from: server.url("/a.png"), options: options)
                #expect(result.image.size.width == 300)
            }
            let config = LoaderTesting.config { $0.allowInvalidCertificates = true }
            try await LoaderTesting.withDownloader(config) { downloader in
                let result = try await downloader.loadImage(from: server.url("/a.png"))
                #expect(result.image.size.width == 300)
            }
            #expect(server.requests.count == 2)
        }
    }
}
