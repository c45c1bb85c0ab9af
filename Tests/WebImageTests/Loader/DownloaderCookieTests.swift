import Foundation
import Testing
@testable import WebImage

/// `handleCookies` against a real server: cookies stored from responses and sent back only
/// by the loads that ask for it, as SDWebImage's `HandleCookies` does with URLSession.
@Suite struct DownloaderCookieTests {
    private let png: Data
    init() throws { png = try pngData() }

    @Test func aCookieSetByOneLoadIsSentByTheNextThatHandlesCookies() async throws {
        let routes: [String: LoopbackServer.Reply] = [
            "/login.png": .ok(png, contentType: "image/png", headers: [("Set-Cookie", "session=abc; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT"), ("Set-Cookie", "theme=dark")]),
            "/a.png": pngReply(png),
            "/b.png": pngReply(png),
        ]
        try await LoopbackServer.with(routes) { server in
            let jar = CookieJar()
            let config = LoaderTesting.config { $0.cookieJar = jar }
            try await LoaderTesting.withDownloader(config) { downloader in
                var cookies = DownloadRequestOptions()
                cookies.handleCookies = true
                _ = try await downloader.loadImage(from: server.url("/login.png"), options: cookies)
                #expect(Set(jar.cookies().map(\.name)) == ["session", "theme"])
                _ = try await downloader.loadImage(from: server.url("/a.png"), options: cookies)
                _ = try await downloader.loadImage(from: server.url("/b.png"))
            }
            let sent = Dictionary(server.requests.map { ($0.path, $0.header("Cookie")) }, uniquingKeysWith: { first, _ in first })
            #expect(sent["/login.png"] == .some(nil))
            #expect(sent["/a.png"] == .some("session=abc; theme=dark"))
            // Without the flag a request carries no cookie, as in SDWebImage.
            #expect(sent["/b.png"] == .some(nil))
        }
    }

    @Test func withoutTheFlagAResponsesCookiesAreNotStored() async throws {
        let reply = LoopbackServer.Reply.ok(png, contentType: "image/png", headers: [("Set-Cookie", "tracker=1")])
        try await LoopbackServer.with(["/a.png": reply]) { server in
            let jar = CookieJar()
            try await LoaderTesting.withDownloader(LoaderTesting.config { $0.cookieJar = jar }) { downloader in
                _ = try await downloader.loadImage(from: server.url("/a.png"))
            }
            #expect(jar.cookies().isEmpty)
        }
    }

    @Test func aCookieSetOnARedirectIsStoredForLaterLoads() async throws {
        let routes: [String: LoopbackServer.Reply] = [
            "/start": .status(302, headers: [("Location", "/end.png"), ("Set-Cookie", "hop=1")]),
            "/end.png": pngReply(png),
        ]
        try await LoopbackServer.with(routes) { server in
            let jar = CookieJar()
            try await LoaderTesting.withDownloader(LoaderTesting.config { $0.cookieJar = jar }) { downloader in
                var cookies = DownloadRequestOptions()
                cookies.handleCookies = true
                _ = try await downloader.loadImage(from: server.url("/start"), options: cookies)
                #expect(jar.cookies().map(\.name) == ["hop"])
                _ = try await downloader.loadImage(from: server.url("/end.png"), options: cookies)
            }
            #expect(server.requests.map(\.path) == ["/start", "/end.png", "/end.png"])
            #expect(server.requests.last?.header("Cookie") == "hop=1")
        }
    }
}
