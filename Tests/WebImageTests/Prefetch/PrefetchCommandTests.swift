import Foundation
import Testing
@testable import WebImage

/// `webimage prefetch`: plain per-URL lines and a summary when stdout is not a terminal,
/// status 1 when a URL was skipped, and one error line for a bad list. Runs the real
/// binary against a loopback server.
@Suite(.serialized) struct PrefetchCommandTests {
    /// Runs the command on a dispatch thread: waiting for the child process must not block
    /// the cooperative threads the loopback server's tasks need.
    func offPool(_ command: @escaping @Sendable () throws -> WebImageCommand.Run) async throws -> WebImageCommand.Run {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try command() })
            }
        }
    }

    func listFile(_ lines: [String]) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-prefetch-\(UUID().uuidString).txt")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        return file
    }

    @Test func prefetchPrintsALinePerURLAndASummary() async throws {
        let png = try Corpus.data("TestImage.png"), jpeg = try Corpus.data("TestImage.jpg")
        try await LoopbackServer.with(["/a.png": .ok(png), "/b.jpg": .ok(jpeg)]) { server in
            let file = try listFile(["# warm the gallery", server.url("/a.png").absoluteString, "",
                                     "  \(server.url("/b.jpg").absoluteString)  ", server.url("/missing.png").absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await offPool { try WebImageCommand.run("prefetch", "--from", file.path, "--concurrency", "2") }
            #expect(run.status == 1)
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("loaded \(server.url("/a.png").absoluteString) 300x300 \(String(format: "%.1f", Double(png.count) / 1024)) KB from network"))
            #expect(lines.contains { $0.hasPrefix("loaded \(server.url("/b.jpg").absoluteString) ") })
            #expect(lines.contains("skipped \(server.url("/missing.png").absoluteString): invalid download status code 404"))
            #expect(lines.last?.hasPrefix("prefetched 3 URLs: finished 3, loaded 2, skipped 1, ") == true)
            #expect(!run.stdout.contains("\r"))  // no progress bar off a terminal
            #expect(server.requestCount("/a.png") == 1 && server.requestCount("/b.jpg") == 1)
        }
    }

    @Test func prefetchSucceedsWhenEveryURLLoads() async throws {
        let png = try Corpus.data("TestImage.png")
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            let file = try listFile([server.url("/a.png").absoluteString])
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await offPool { try WebImageCommand.run("prefetch", "--from", file.path) }
            #expect(run.status == 0)
            #expect(run.stdout.contains("finished 1, loaded 1, skipped 0"))
        }
    }

    @Test func aLineThatIsNotAURLIsReportedWithItsNumber() async throws {
        let file = try listFile(["# list", "https://example.test/a.png", "not a url"])
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await offPool { try WebImageCommand.run("prefetch", "--from", file.path) }
        #expect(run.status == 1)
        #expect(run.stderr == "webimage: error: line 3 is not an absolute URL: not a url\n")
        #expect(run.stdout.isEmpty)
    }

    @Test func concurrencyBelowOneIsRejected() async throws {
        let run = try await offPool { try WebImageCommand.run("prefetch", "--from", "/dev/null", "--concurrency", "0") }
        #expect(run.status != 0)
        #expect(run.stderr.contains("--concurrency must be at least 1"))
    }
}
