import Foundation
import Testing
@testable import WebImage

/// The downloader against a well-behaved loopback server: SDWebImage's downloader
/// behaviours, coalescing, per-caller decode options, progress, events and modifiers.
@Suite("Downloader", .timeLimit(.minutes(1)))
struct DownloaderTests {
    let png: Data
    let jpeg: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
        jpeg = try Corpus.data("TestImage.jpg")
    }

    @Test func downloadsAndDecodesAnImage() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let result = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                #expect(result.image.size == ImageSize(width: 300, height: 300))
                #expect(result.image.format == .png)
                #expect(result.data == png)
                #expect(result.url == server.url("/a.png"))
                #expect(result.metrics?.bytesReceived == png.count)
                #expect(result.metrics?.statusCode == 200)
                #expect(result.metrics?.redirectCount == 0)
            }
        }
    }

    @Test func aTimeoutLongerThanNanosecondsCanCountIsNoPracticalLimit() async throws {
        // 10^11 s is 10^20 ns, more than a 64-bit count of nanoseconds holds.
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            try await LoaderTesting.withDownloader(LoaderTesting.config(timeout: .seconds(100_000_000_000))) { downloader in
                let result = try await downloader.load(server.url("/a.png"), options: DownloadRequestOptions(), progress: nil)
                #expect(result.data == png)
            }
        }
    }

    @Test func resultsCarryTheResponseHeadForRevalidation() async throws {
        let headers = [("ETag", "\"v1\""), ("Last-Modified", "Sat, 21 Nov 2026 08:00:00 GMT")]
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png", headers: headers)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let image = try await downloader.loadImage(from: server.url("/a.png"))
                let response = try #require(image.response)
                #expect(response.statusCode == 200)
                #expect(response.headers.first(name: "etag") == "\"v1\"")
                #expect(response.headers.first(name: "Last-Modified") == "Sat, 21 Nov 2026 08:00:00 GMT")
                let raw = try await downloader.loadData(from: server.url("/a.png"))
                #expect(raw.response?.headers.first(name: "ETag") == "\"v1\"")
                #expect(raw.data == png)
            }
        }
    }

    @Test func aRevalidated304CarriesItsOwnHead() async throws {
        let reply = LoopbackServer.Reply.status(304, headers: [("ETag", "\"v2\"")])
        try await LoopbackServer.with(["/a.png": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                var options = DownloadRequestOptions()
                options.cachedData = png
                let result = try await downloader.loadImage(from: server.url("/a.png"), options: options)
                #expect(result.data == png)
                #expect(result.response?.statusCode == 304)
                #expect(result.response?.headers.first(name: "ETag") == "\"v2\"")
            }
        }
    }

    /// Validators given with the cached bytes are the ones asked with, not the downloader's
    /// latest for the URL (another version's); empty ones ask unconditionally.
    @Test func cachedDataValidatorsReplaceTheDownloadersOwn() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png", headers: [("ETag", "\"latest\"")])]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/a.png")
                _ = try await downloader.loadData(from: url)
                var options = DownloadRequestOptions()
                options.cachedData = png
                _ = try await downloader.loadData(from: url, options: options)
                #expect(server.requests.last?.header("If-None-Match") == "\"latest\"", "without validators: the downloader's own")
                options.cachedDataValidators = HTTPValidators(entityTag: "\"cached\"", lastModified: "Sat, 21 Nov 2026 08:00:00 GMT")
                _ = try await downloader.loadData(from: url, options: options)
                #expect(server.requests.last?.header("If-None-Match") == "\"cached\"")
                #expect(server.requests.last?.header("If-Modified-Since") == "Sat, 21 Nov 2026 08:00:00 GMT")
                options.cachedDataValidators = HTTPValidators()
                _ = try await downloader.loadData(from: url, options: options)
                #expect(server.requests.last?.header("If-None-Match") == nil)
                #expect(server.requests.last?.header("If-Modified-Since") == nil)
            }
        }
    }

    @Test func sendsTheAcceptHeaderAndUserAgent() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                _ = try await downloader.loadImage(from: server.url("/a.png"))
                let request = try #require(server.requests.first)
                #expect(request.header("Accept") == "image/*,*/*;q=0.8")
                #expect(request.header("User-Agent")?.hasPrefix("WebImage/") == true)
            }
        }
    }

    @Test func headersCanBeSetAndRemovedAtRunTime() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                downloader.setValue("yes", forHTTPHeaderField: "X-Test")
                downloader.setValue(nil, forHTTPHeaderField: "accept")
                #expect(downloader.value(forHTTPHeaderField: "x-test") == "yes")
                _ = try await downloader.loadImage(from: server.url("/a.png"))
                let request = try #require(server.requests.first)
                #expect(request.header("X-Test") == "yes")
                #expect(request.header("Accept") == nil)
            }
        }
    }

    @Test(arguments: [nil, "ftp://127.0.0.1/a.png", "http:///nohost.png", "/just/a/path"])
    func refusesMissingOrNonHTTPURLs(_ text: String?) async throws {
        try await LoaderTesting.withDownloader { downloader in
            let url = text.flatMap { URL(string: $0) }
            let error = await LoaderTesting.error(loading: url, with: downloader)
            guard case .invalidURL = error else {
                Issue.record("expected invalidURL, got \(String(describing: error))")
                return
            }
            let recorder = CompletionRecorder()
            #expect(downloader.downloadImage(with: url, completion: recorder.completion(0)) == nil)
            #expect(recorder.callCounts == [0: 1])
        }
    }

    @Test func statusCodeSetWithoutTheResponseCodeFailsA200() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            let config = LoaderTesting.config { $0.acceptableStatusCodes = [1] }
            try await LoaderTesting.withDownloader(config) { downloader in
                let error = await LoaderTesting.error(loading: server.url("/a.png"), with: downloader)
                #expect(error == .invalidDownloadStatusCode(200))
            }
        }
    }

    @Test func contentTypeSetWithoutTheResponseTypeFailsAnImage() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "image/png")]) { server in
            let config = LoaderTesting.config { $0.acceptableContentTypes = ["application/json"] }
            try await LoaderTesting.withDownloader(config) { downloader in
                let error = await LoaderTesting.error(loading: server.url("/a.png"), with: downloader)
                #expect(error == .invalidDownloadContentType("image/png"))
            }
        }
    }

    @Test func contentTypeSetAcceptsAMatchingTypeWithParameters() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png, contentType: "Image/PNG; charset=binary")]) { server in
            let config = LoaderTesting.config { $0.acceptableContentTypes = ["image/png"] }
            try await LoaderTesting.withDownloader(config) { downloader in
                let result = try await downloader.loadImage(from: server.url("/a.png"))
                #expect(result.image.format == .png)
            }
        }
    }

    @Test func coalescesConcurrentLoadsOfOneURL() async throws {
        let reply = LoopbackServer.Reply.delayed(.milliseconds(300), then: .ok(png, contentType: "image/png"))
        try await LoopbackServer.with(["/a.png": reply]) { server in
            let recorder = CompletionRecorder()
            try await LoaderTesting.withDownloader { downloader in
                for index in 0..<100 {
                    downloader.downloadImage(with: server.url("/a.png"), completion: recorder.completion(index))
                }
                let outcomes = await recorder.outcomes(100)
                let sizes = outcomes.values.compactMap { try? $0.get().image.size }
                #expect(sizes.count == 100)
                #expect(sizes.allSatisfy { $0 == ImageSize(width: 300, height: 300) })
            }
            #expect(server.requestCount("/a.png") == 1)
            #expect(recorder.callCounts.count == 100 && recorder.callCounts.values.allSatisfy { $0 == 1 })
        }
    }

    /// A review's finding: callers were joined by URL whatever their request-level options,
    /// so a caller with no credentials received the response to another caller's request
    /// with an `Authorization` header. A caller with options of its own gets its own
    /// request; callers without share one, as before.
    @Test func aCallerWithRequestOptionsOfItsOwnGetsARequestOfItsOwn() async throws {
        // Every reply is held until the gate opens, and all four callers are registered
        // before it does, each call registering before it returns: no download can end
        // before the last caller asks, so whether they share is the downloader's choice
        // alone. (Loads from `async let` tasks, with replies held 500 ms, counted on the
        // starved cooperative pool starting them within that window.)
        let gate = ReplyGate()
        defer { gate.open() }
        let reply = LoopbackServer.Reply.gated(png, firstPart: 100, gate: gate, interval: .milliseconds(20), contentType: "image/png")
        try await LoopbackServer.with(["/a.png": reply]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/a.png")
                let outcomes = DataOutcomes()
                var alice = DownloadRequestOptions()
                alice.requestModifier = .headers(["Authorization": "Bearer alice"])
                var cookies = DownloadRequestOptions()
                cookies.handleCookies = true
                downloader.downloadData(with: url, options: alice, completion: outcomes.record)
                downloader.downloadData(with: url, completion: outcomes.record)
                downloader.downloadData(with: url, completion: outcomes.record)
                downloader.downloadData(with: url, options: cookies, completion: outcomes.record)
                gate.open()
                let ended = await waitUntil(.seconds(30)) { outcomes.all.count == 4 }
                #expect(ended)
                #expect(outcomes.all.allSatisfy { (try? $0.get())?.data == png })
            }
            #expect(server.requestCount("/a.png") == 3, "alice's, the two plain callers' one, the cookie caller's")
            let authorized = server.requests.filter { $0.headers.contains { $0.name.lowercased() == "authorization" } }
            #expect(authorized.count == 1)
        }
    }

    @Test func cancellingOneOfManyCallersLeavesTheOthersToSucceed() async throws {
        let reply = LoopbackServer.Reply.delayed(.milliseconds(300), then: .ok(png, contentType: "image/png"))
        try await LoopbackServer.with(["/a.png": reply]) { server in
            let recorder = CompletionRecorder()
            try await LoaderTesting.withDownloader { downloader in
                var tokens: [DownloadToken?] = []
                for index in 0..<100 {
                    tokens.append(downloader.downloadImage(with: server.url("/a.png"), completion: recorder.completion(index)))
                }
                tokens[0]?.cancel()
                tokens[0]?.cancel()
                let outcomes = await recorder.outcomes(100)
                #expect(throws: WebImageError.cancelled) { try outcomes[0]?.get() }
                let successes = outcomes.filter { (try? $0.value.get()) != nil }
                #expect(successes.count == 99)
            }
            #expect(server.requestCount("/a.png") == 1)
            #expect(recorder.callCounts.values.allSatisfy { $0 == 1 })
        }
    }

    @Test func cancellingEveryCallerCancelsTheRequestAndALaterCallStartsANewOne() async throws {
        // The head arrives, then the body stalls: only the cancelled request (not the 30-s
        // time-out) can close the connection, so its close shows the request was stopped.
        // A request left running would keep it open with the same outcomes for the callers.
        let reply = LoopbackServer.Reply.stallAfterHeaders(contentLength: 5000)
        try await LoopbackServer.with(["/a.png": reply]) { server in
            try await LoaderTesting.withDownloader(LoaderTesting.config(timeout: LoaderTesting.outlastingTimeout)) { downloader in
                let recorder = CompletionRecorder()
                let first = downloader.downloadImage(with: server.url("/a.png"), completion: recorder.completion(0))
                let second = downloader.downloadImage(with: server.url("/a.png"), completion: recorder.completion(1))
                try await server.waitForRequests(1)
                #expect(server.openConnectionCount == 1)
                let start = ContinuousClock.now
                first?.cancel()
                second?.cancel()
                let outcomes = await recorder.outcomes(2)
                #expect(outcomes.values.allSatisfy { (try? $0.get()) == nil })
                #expect(
                    try await server.waitForOpenConnections(atMost: 0, within: LoaderTesting.endBound),
                    "the request went on after its last caller cancelled"
                )
                #expect(ContinuousClock.now - start < LoaderTesting.endBound.scaled)
                #expect(downloader.currentDownloadCount == 0)
                server.setRoute("/a.png", .ok(png, contentType: "image/png"))
                let result = try await downloader.loadImage(from: server.url("/a.png"))
                #expect(result.image.size.width == 300)
                // A load after the shared one finished goes to the network again.
                _ = try await downloader.loadImage(from: server.url("/a.png"))
            }
            #expect(server.requestCount("/a.png") == 3)
        }
    }

    @Test func cancellingTheCallingTaskCancelsItsLoad() async throws {
        // The reply and the time-out both come after 30 s (scaled, like the bound): an end
        // within 10 s can only be the cancellation, with room for a loaded machine.
        let reply = LoopbackServer.Reply.delayed(LoaderTesting.outlastingTimeout.scaled, then: .ok(png))
        try await LoopbackServer.with(["/slow.png": reply]) { server in
            try await LoaderTesting.withDownloader(LoaderTesting.config(timeout: LoaderTesting.outlastingTimeout)) { downloader in
                let url = server.url("/slow.png")
                let task = Task { try await downloader.loadImage(from: url) }
                try await server.waitForRequests(1)
                let start = ContinuousClock.now
                task.cancel()
                await #expect(throws: WebImageError.cancelled) { try await task.value }
                #expect(ContinuousClock.now - start < LoaderTesting.endBound.scaled)
            }
        }
    }

    /// A task cancelled before it asks (the image server's source fetch, cancelled by its
    /// deadline while a DNS lookup ran) fails at once: it used to open a connection and send
    /// the request, then stop it.
    @Test func anAlreadyCancelledTaskSendsNoRequest() async throws {
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let url = server.url("/a.png")
                let task = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await downloader.loadData(from: url)
                }
                await #expect(throws: WebImageError.cancelled) { try await task.value }
                _ = try await downloader.loadData(from: url)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    @Test func cancellingTheLastCallerMidBodyClosesTheConnectionAndFreesTheSlot() async throws {
        // The head arrives, then the body stalls: only a cancelled request (not a time-out,
        // 30 s here) can close this connection. One slot: the next download needs it back.
        let routes: [String: LoopbackServer.Reply] = ["/stall.png": .stallAfterHeaders(contentLength: 5000), "/a.png": .ok(png)]
        try await LoopbackServer.with(routes) { server in
            let config = LoaderTesting.config(timeout: LoaderTesting.outlastingTimeout) { $0.maxConcurrentDownloads = 1 }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                let token = downloader.downloadImage(with: server.url("/stall.png"), completion: recorder.completion(0))
                try await server.waitForRequests(1)
                #expect(server.openConnectionCount == 1)
                let start = ContinuousClock.now
                token?.cancel()
                // Bounds a third of the time-out, which is what would otherwise end the
                // request, yet loose enough for a starved 2-core CI machine.
                #expect(try await server.waitForOpenConnections(atMost: 0, within: LoaderTesting.endBound))
                #expect(ContinuousClock.now - start < LoaderTesting.endBound.scaled)
                let outcomes = await recorder.outcomes(1)
                #expect(throws: WebImageError.cancelled) { try outcomes[0]?.get() }
                #expect(downloader.currentDownloadCount == 0)
                // The bytes, not an image: a decode waits on BlockingIO's queue, which the
                // parallel pass keeps busy with other tests' decodes for seconds (4.7 s seen),
                // and says nothing about the slot, which was free milliseconds after the cancel.
                let next = try await downloader.loadData(from: server.url("/a.png"))
                #expect(next.data == png)
                #expect(ContinuousClock.now - start < LoaderTesting.endBound.scaled)
                #expect(recorder.callCounts == [0: 1])
            }
        }
    }

    @Test func eachThumbnailSizeGetsItsOwnImageFromOneRequest() async throws {
        let reply = LoopbackServer.Reply.delayed(.milliseconds(200), then: .ok(png, contentType: "image/png"))
        try await LoopbackServer.with(["/a.png": reply]) { server in
            let coder = DecodeCountingCoder(wrapping: PNGCoder())
            let config = LoaderTesting.config { $0.coder = coder }
            try await LoaderTesting.withDownloader(config) { downloader in
                let sides = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
                let images = try await withThrowingTaskGroup(of: (Int, Image).self) { group in
                    for side in sides {
                        group.addTask {
                            var options = DownloadRequestOptions()
                            options.decodeOptions.thumbnailPixelSize = ImageSize(width: side, height: side)
                            return (side, try await downloader.loadImage(from: server.url("/a.png"), options: options).image)
                        }
                    }
                    return try await group.reduce(into: [Int: Image]()) { $0[$1.0] = $1.1 }
                }
                for side in sides {
                    #expect(images[side]?.size == ImageSize(width: side, height: side))
                    #expect(images[side]?.isThumbnail == true)
                }
                #expect(coder.decodeCount == sides.count)
            }
            #expect(server.requestCount("/a.png") == 1)
        }
    }

    @Test func equalDecodeOptionsAreDecodedOnce() async throws {
        let reply = LoopbackServer.Reply.delayed(.milliseconds(200), then: .ok(png, contentType: "image/png"))
        try await LoopbackServer.with(["/a.png": reply]) { server in
            let coder = DecodeCountingCoder(wrapping: PNGCoder())
            let config = LoaderTesting.config { $0.coder = coder }
            try await LoaderTesting.withDownloader(config) { downloader in
                let recorder = CompletionRecorder()
                var small = DownloadRequestOptions()
                small.decodeOptions.thumbnailPixelSize = ImageSize(width: 64, height: 64)
                for index in 0..<10 {
                    downloader.downloadImage(with: server.url("/a.png"), options: index.isMultiple(of: 2) ? small : DownloadRequestOptions(),
                                             completion: recorder.completion(index))
                }
                let outcomes = await recorder.outcomes(10)
                let widths = outcomes.sorted { $0.key < $1.key }.compactMap { try? $0.value.get().image.size.width }
                #expect(widths == [64, 300, 64, 300, 64, 300, 64, 300, 64, 300])
                #expect(coder.decodeCount == 2)
            }
        }
    }
}
