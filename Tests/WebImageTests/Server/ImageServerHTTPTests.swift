import Foundation
import NIOHTTP1
import Testing
@testable import WebImage
@testable import WebImageServer

/// The HTTP face of the server: /health, HEAD, Cache-Control, ETag and 304, Vary and the
/// Accept negotiation, the one-line error bodies, and the shared secret.
@Suite struct ImageServerHTTPTests {
    static func routes() throws -> [String: LoopbackServer.Reply] {
        [
            "/a.png": .ok(try ServerImages.quadrantsPNG(width: 40, height: 20), contentType: "image/png"),
            "/b.jpg": .ok(try Corpus.data("TestImage.jpg"), contentType: "image/jpeg"),
        ]
    }

    @Test func healthAnswers200WithOK() async throws {
        try await RunningImageServer.with(.testing()) { server in
            let reply = try await server.request("/health")
            #expect(reply.status == 200)
            #expect(reply.text == "OK\n")
            #expect(reply.header("Cache-Control") == "no-cache")
            // A load balancer may check with HEAD: it was a 404 (the path's own route has
            // no HEAD, and the catch-all does not match a path that has a route).
            let head = try await server.request("/health", method: .HEAD)
            #expect(head.status == 200)
            // Over a raw connection, as nginx keeps one: a body sent after a HEAD's head
            // would be read as the start of the next answer on the connection.
            let port = server.port
            let (first, second) = try await ImageServerImmediateResponseTests.onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("HEAD /health HTTP/1.1\r\nHost: a\r\n\r\nGET /health HTTP/1.1\r\nHost: a\r\n\r\n")
                return (try connection.readResponse(bodyless: true), try connection.readResponse())
            }
            #expect(first.status == 200)
            #expect(second.head.hasPrefix("HTTP/1.1 200"), "the answer after the HEAD began with \(second.head.prefix(20).debugDescription)")
            #expect(String(decoding: second.body, as: UTF8.self) == "OK\n")
        }
    }

    /// imgproxy's `IMGPROXY_ALLOW_ORIGIN`: the CORS headers on every answer to an image
    /// request (a miss, a memory hit answered in the pipeline, a failure) and a 200 to a
    /// browser's preflight; none of them without the setting, where OPTIONS is still 200.
    @Test func allowOriginAddsTheCORSHeadersImgproxySends() async throws {
        for origin in ["https://app.example", nil] {
            let configuration = ImageServer.Configuration.testing {
                $0.allowOrigin = origin
                $0.resultCache = .memory
            }
            try await RunningImageServer.with(origin: try Self.routes(), configuration) { source, server in
                let path = ImageURL.plain(source.url("/a.png"), ["w:20"])
                let miss = try await server.request(path)
                let hit = try await server.request(path)
                let failure = try await server.request(ImageURL.plain(source.url("/gone.png"), ["w:20"]))
                let preflight = try await server.request(path, method: .OPTIONS, headers: [("Origin", "https://app.example")])
                #expect(miss.status == 200 && hit.status == 200 && failure.status == 404 && preflight.status == 200)
                for reply in [miss, hit, failure, preflight] {
                    #expect(reply.header("Access-Control-Allow-Origin") == origin)
                    #expect(reply.header("Access-Control-Allow-Methods") == (origin == nil ? nil : "GET, OPTIONS"))
                }
                #expect(preflight.body.isEmpty)
            }
        }
    }

    /// PDF and SVG sources are rendered only with `WEBIMAGE_ALLOW_PDF` and
    /// `WEBIMAGE_ALLOW_SVG`: poppler and librsvg have no bound on what a document makes them
    /// allocate, so a PDF of 1.4 KB, or an SVG of 366 bytes, could take gigabytes.
    @Test func documentSourcesAreRenderedOnlyWhenAllowed() async throws {
        let pdf = PDFDocuments.make(pages: [.init(width: 20, height: 10, color: PDFDocuments.color(of: 0))])
        let svg = try Corpus.data("TestImage.svg")
        let routes: [String: LoopbackServer.Reply] = [
            "/doc.pdf": .ok(pdf, contentType: "application/pdf"), "/logo.svg": .ok(svg, contentType: "image/svg+xml"),
        ]
        for (pdfAllowed, svgAllowed) in [(false, false), (true, false), (false, true)] {
            let configuration = ImageServer.Configuration.testing {
                $0.allowsPDF = pdfAllowed
                $0.allowsSVG = svgAllowed
            }
            try await RunningImageServer.with(origin: routes, configuration) { origin, server in
                let pdfReply = try await server.request(ImageURL.plain(origin.url("/doc.pdf"), ["w:10"], extension: "png"))
                #expect(pdfReply.status == (pdfAllowed ? 200 : 422), "\(pdfReply.text)")
                let svgReply = try await server.request(ImageURL.plain(origin.url("/logo.svg"), ["w:10"], extension: "png"))
                #expect(svgReply.status == (svgAllowed ? 200 : 422), "\(svgReply.text)")
            }
        }
    }

    @Test func sourcesAreRequestedWithTheConfiguredUserAgent() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing { $0.userAgent = "node-a/1" }) { origin, server async throws in
            #expect(try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:10"])).status == 200)
            #expect(origin.requests.last?.header("User-Agent") == "node-a/1")
        }
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server async throws in
            #expect(try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:10"])).status == 200)
            #expect(origin.requests.last?.header("User-Agent") == Downloader.Configuration.defaultUserAgent)
        }
    }

    @Test func successCarriesTypeLengthAndCacheControlWithTheTTL() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing { $0.ttl = 3600 }) { origin, server in
            let reply = try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:20"]))
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "image/png")
            #expect(reply.header("Content-Length") == String(reply.body.count))
            #expect(reply.header("Cache-Control") == "max-age=3600, public")
            #expect(reply.header("ETag") == nil)
            #expect(reply.header("Vary") == nil)
            #expect(reply.header("Content-Disposition") == "inline; filename=\"a.png\"")
        }
    }

    /// imgproxy's `Content-Disposition`: the source's name with the result's extension,
    /// kept with the result in both cache levels; and a TTL of 0 is `no-cache`.
    @Test func contentDispositionNamesTheSourceWithTheResultsExtension() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cd-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ImageServer.Configuration.testing { $0.ttl = 0; $0.resultCache = [.memory, .disk]; $0.cacheDirectory = directory }
        try await LoopbackServer.with(try Self.routes()) { origin in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"], extension: "webp")
            try await RunningImageServer.with(configuration) { server in
                for _ in 0..<2 {  // made, then a memory hit
                    let reply = try await server.request(path)
                    #expect(reply.header("Content-Disposition") == "inline; filename=\"a.webp\"")
                    #expect(reply.header("Cache-Control") == "no-cache")
                }
            }
            // A new server over the same disk level: the name came back with the bytes.
            try await RunningImageServer.with(configuration) { server in
                let reply = try await server.request(path)
                #expect(origin.requestCount("/a.png") == 1, "a disk hit")
                #expect(reply.header("Content-Disposition") == "inline; filename=\"a.webp\"")
            }
        }
        let named = { (source: String, format: ImageFormat) in ImageServer.suggestedFilename(source: URL(string: source)!, format: format) }
        #expect(named("http://a.test/photos/cat.photo.jpg?x=1", .webp) == "cat.photo.webp")
        #expect(named("http://a.test/", .jpeg) == "image.jpg")
        #expect(named("data:image/png;base64,iVBORw0KGgo=", .png) == "image.png")
        #expect(named("http://a.test/%22quoted%22%0D%0A%C3%A9.png", .png) == "%22quoted%22%0D%0A%C3%A9.png")
        #expect(named("http://a.test/" + String(repeating: "x", count: 300) + ".png", .png).count <= 104)
    }

    @Test func headGivesTheHeadersOfTheGetWithoutABody() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server in
            let path = ImageURL.plain(origin.url("/b.jpg"), ["w:40"], extension: "webp")
            let get = try await server.request(path)
            let head = try await server.request(path, method: .HEAD)
            #expect(get.status == 200 && head.status == 200)
            #expect(!get.body.isEmpty)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Type") == "image/webp")
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("Cache-Control") == get.header("Cache-Control"))
            // An error to a HEAD has its status and no body either.
            let failed = try await server.request("/insecure/nope:1/plain/x", method: .HEAD)
            #expect(failed.status == 400)
            #expect(failed.body.isEmpty)
        }
    }

    /// A query on the request is no part of it (imgproxy cuts it off first): a signed URL
    /// with `?utm_source=…` appended by a CDN or a tracker still verifies, and the source is
    /// fetched without it. The memory cache serves the two spellings as one result.
    @Test func aQueryOnTheRequestChangesNeitherTheSignatureNorTheSource() async throws {
        let signer = try URLSigner(keys: [ImageServerSignatureTests.key], salts: [ImageServerSignatureTests.salt])
        try await RunningImageServer.with(origin: try Self.routes(), ImageServerSignatureTests.signed { $0.resultCache = .memory }) { origin, server in
            let part = "/w:20/plain/" + origin.url("/a.png").absoluteString
            let signature = try #require(signer.signature(for: part))
            let reply = try await server.request("/" + signature + part + "?utm_source=mail&v=2")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try CodersManager.shared.decode(reply.body).size == ImageSize(width: 20, height: 10))
            #expect(origin.requests.map(\.path) == ["/a.png"])
            // A colon a proxy encoded and a scheme's slashes it merged are restored too.
            let mangled = "/" + signature + "/w%3A20/plain/" + origin.url("/a.png").absoluteString.replacingOccurrences(of: "://", with: ":/")
            #expect(try await server.request(mangled).status == 200)
            #expect(origin.requestCount("/a.png") == 1, "one result for every spelling")
        }
    }

    // MARK: ETag

    @Test func etagAnswersAMatchingIfNoneMatchWith304AndNoBody() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing { $0.useETag = true }) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"])
            let first = try await server.request(path)
            let etag = try #require(first.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34)
            let again = try await server.request(path)
            #expect(again.header("ETag") == etag)

            let notModified = try await server.request(path, headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.header("ETag") == etag)
            for header in ["W/" + etag, "\"other\", " + etag, "*"] {
                #expect(try await server.request(path, headers: [("If-None-Match", header)]).status == 304, "\(header)")
            }

            let other = try await server.request(path, headers: [("If-None-Match", "\"0123456789abcdef0123456789abcdef\"")])
            #expect(other.status == 200)
            #expect(other.body == first.body)
            // Another result has another tag.
            let smaller = try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:10"]))
            #expect(smaller.header("ETag") != etag)
        }
    }

    @Test func withoutUseETagIfNoneMatchIsIgnored() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server in
            let reply = try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:20"]), headers: [("If-None-Match", "*")])
            #expect(reply.status == 200)
            #expect(!reply.body.isEmpty)
        }
    }

    // MARK: Negotiation

    @Test func autoWebPServesWebPToClientsThatAcceptItAndVariesOnAccept() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing { $0.autoWebP = true; $0.resultCache = .memory }) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"])
            let webp = try await server.request(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(webp.status == 200)
            #expect(webp.header("Content-Type") == "image/webp")
            #expect(ImageFormat(sniffing: webp.body) == .webp)
            #expect(webp.header("Vary") == "Accept")

            // Same URL, no WebP in Accept: the source's format, from its own cache entry.
            let png = try await server.request(path, headers: [("Accept", "image/png,*/*")])
            #expect(png.header("Content-Type") == "image/png")
            #expect(ImageFormat(sniffing: png.body) == .png)
            #expect(png.header("Vary") == "Accept")
            let none = try await server.request(path)
            #expect(ImageFormat(sniffing: none.body) == .png)

            // A URL that names its format does not vary.
            let named = try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:20"], extension: "jpg"), headers: [("Accept", "image/webp")])
            #expect(named.header("Content-Type") == "image/jpeg")
            #expect(named.header("Vary") == nil)
        }
    }

    @Test func withoutAutoWebPAcceptIsIgnored() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server in
            let reply = try await server.request(ImageURL.plain(origin.url("/b.jpg"), ["w:20"]), headers: [("Accept", "image/webp")])
            #expect(reply.header("Content-Type") == "image/jpeg")
            #expect(reply.header("Vary") == nil)
        }
    }

    @Test(.enabled(if: CodersManager.shared.canEncode(to: .avif), "this libavif has no AV1 encoder"))
    func autoAVIFIsPreferredOverWebP() async throws {
        let configuration = ImageServer.Configuration.testing { $0.autoWebP = true; $0.autoAVIF = true }
        try await RunningImageServer.with(origin: try Self.routes(), configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"])
            let avif = try await server.request(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(avif.header("Content-Type") == "image/avif")
            #expect(ImageFormat(sniffing: avif.body) == .avif)
            #expect(avif.header("Vary") == "Accept")
            let webp = try await server.request(path, headers: [("Accept", "image/webp,*/*")])
            #expect(webp.header("Content-Type") == "image/webp")
        }
    }

    /// An animation skips a negotiated AVIF (which would make it a still) for WebP when the
    /// client takes WebP, else for the preferred formats' GIF, as imgproxy does; a still
    /// from the same server still gets AVIF. The two clients' results are cached apart.
    @Test(.enabled(if: CodersManager.shared.canEncode(to: .avif), "this libavif has no AV1 encoder"))
    func anAnimationSkipsANegotiatedAVIF() async throws {
        let gif = try Corpus.data("TestImage.gif")
        let configuration = ImageServer.Configuration.testing { $0.autoWebP = true; $0.autoAVIF = true; $0.resultCache = .memory }
        var routes = try Self.routes()
        routes["/anim.gif"] = .ok(gif, contentType: "image/gif")
        try await RunningImageServer.with(origin: routes, configuration) { origin, server in
            let path = ImageURL.plain(origin.url("/anim.gif"), ["w:20"])
            let webp = try await server.request(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(webp.header("Content-Type") == "image/webp")
            #expect(try CodersManager.shared.decode(webp.body).isAnimated)
            let gifReply = try await server.request(path, headers: [("Accept", "image/avif,*/*")])
            #expect(gifReply.header("Content-Type") == "image/gif")
            #expect(try CodersManager.shared.decode(gifReply.body).isAnimated)
            let still = try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:20"]), headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(still.header("Content-Type") == "image/avif")
        }
    }

    @Test func autoAVIFAloneVariesAndFallsBackToTheSourceFormat() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing { $0.autoAVIF = true }) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"])
            let reply = try await server.request(path, headers: [("Accept", "image/webp")])
            #expect(reply.header("Vary") == "Accept")
            // WebP is not on, so only AVIF could replace the source's PNG.
            #expect(reply.header("Content-Type") == "image/png")
        }
    }

    // MARK: Errors

    @Test func unknownOptionIsA400WithAOneLineBodyNamingIt() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server in
            let reply = try await server.request(ImageURL.plain(origin.url("/a.png"), ["w:20", "crop:10:10"]))
            #expect(reply.status == 400)
            #expect(reply.text.contains("crop"))
            #expect(reply.text.hasSuffix("\n"))
            #expect(reply.text.dropLast().contains("\n") == false)
            #expect(reply.header("Cache-Control") == "no-cache")
            #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(reply.header("Content-Length") == String(reply.body.count))
            // Refused before any fetch.
            #expect(origin.requestCount("/a.png") == 0)
        }
    }

    @Test(arguments: ["sm:2", "rot:45", "g:sm", "f:svg", "q:500"])
    func malformedOptionsAre400sThroughTheServer(_ option: String) async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server in
            let reply = try await server.request(ImageURL.plain(origin.url("/a.png"), [option]))
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.header("Cache-Control") == "no-cache")
            #expect(origin.requestCount("/a.png") == 0)
        }
    }

    @Test func encryptedAndUnknownSchemeSourcesAre400sAndLocalOnesRefusedByDefault() async throws {
        try await RunningImageServer.with(.testing()) { server async throws in
            #expect(try await server.request("/insecure/w:10/enc/AAAAAAAAAAAA").status == 400)
            #expect(try await server.request("/insecure/w:10/plain/ftp%3A%2F%2Fa.test%2Fb.png").status == 400)
            // A scheme the server knows but the operator did not turn on: the source is
            // forbidden (404, as imgproxy), and the reason names the setting.
            let local = try await server.request("/insecure/w:10/plain/file%3A%2F%2F%2Fetc%2Fpasswd")
            #expect(local.status == 404 && local.text.contains("WEBIMAGE_LOCAL_FILESYSTEM_ROOT"), "\(local.text)")
        }
    }

    @Test func formatTheServerCannotEncodeIsA400() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing()) { origin, server in
            let reply = try await server.request(ImageURL.plain(origin.url("/a.png"), [], extension: "tiff"))
            #expect(reply.status == 400)
            #expect(reply.text.contains("tiff"))
        }
    }

    @Test func secretIsRequiredAsABearerToken() async throws {
        try await RunningImageServer.with(origin: try Self.routes(), .testing { $0.secret = "s3cret" }) { origin, server in
            let path = ImageURL.plain(origin.url("/a.png"), ["w:20"])
            let missing = try await server.request(path)
            #expect(missing.status == 403)
            #expect(missing.text == "missing or wrong Authorization secret\n")
            #expect(missing.header("Cache-Control") == "no-cache")
            #expect(try await server.request(path, headers: [("Authorization", "Bearer wrong")]).status == 403)
            #expect(try await server.request(path, headers: [("Authorization", "s3cret")]).status == 403)
            #expect(try await server.request(path, headers: [("Authorization", "Basic s3cret")]).status == 403)
            #expect(origin.requestCount("/a.png") == 0)
            let allowed = try await server.request(path, headers: [("Authorization", "Bearer s3cret")])
            #expect(allowed.status == 200)
            #expect(ImageFormat(sniffing: allowed.body) == .png)
            // /health stays open: a load balancer has no secret.
            #expect(try await server.request("/health").status == 200)
        }
    }
}
