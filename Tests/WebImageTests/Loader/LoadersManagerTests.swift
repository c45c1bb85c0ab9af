import Foundation
import Testing
@testable import WebImage

/// A user loader for `corpus:NAME` URLs, reading SDWebImage's test images.
private struct CorpusLoader: ImageLoader {
    let coder: any ImageCoder

    func canLoad(_ url: URL) -> Bool { url.scheme == "corpus" }

    func load(_ url: URL, options: DownloadRequestOptions, progress: LoadProgressHandler?) async throws(WebImageError) -> ImageLoaderOutput {
        do {
            let data = try Corpus.data(url.absoluteString.replacingOccurrences(of: "corpus:", with: ""))
            return ImageLoaderOutput(image: try coder.decode(data, options: options.decodeOptions), data: data, url: url)
        } catch {
            throw WebImageError(error)
        }
    }
}

@Suite("LoadersManager", .timeLimit(.minutes(1)))
struct LoadersManagerTests {
    @Test func picksTheLoaderForEachScheme() async throws {
        let png = try Corpus.data("TestImage.png")
        try await LoopbackServer.with(["/a.png": .ok(png)]) { server in
            try await LoaderTesting.withDownloader { downloader in
                let manager = LoadersManager(loaders: [downloader, FileURLLoader(), DataURLLoader()])
                let file = Corpus.directory.appendingPathComponent("TestImage.jpg")
                let data = try #require(URL(string: "data:image/png;base64," + png.base64EncodedString()))
                #expect(try await manager.load(file, options: .init(), progress: nil).image.size.width == 80)
                #expect(try await manager.load(data, options: .init(), progress: nil).image.size.width == 300)
                #expect(try await manager.load(server.url("/a.png"), options: .init(), progress: nil).image.size.width == 300)
                #expect(server.requestCount("/a.png") == 1)
            }
        }
    }

    @Test func unknownSchemeIsInvalidURL() async throws {
        let url = try #require(URL(string: "gopher://127.0.0.1/a.png"))
        let manager = LoadersManager(loaders: [FileURLLoader(), DataURLLoader()])
        #expect(!manager.canLoad(url))
        await #expect(throws: WebImageError.invalidURL(url.absoluteString)) {
            _ = try await manager.load(url, options: .init(), progress: nil)
        }
    }

    @Test func theLoaderAddedLastIsAskedFirst() async throws {
        let first = DecodeCountingCoder(wrapping: JPEGCoder())
        let second = DecodeCountingCoder(wrapping: JPEGCoder())
        let manager = LoadersManager(loaders: [])
        let url = try #require(URL(string: "corpus:TestImage.jpg"))
        #expect(manager.loader(for: url) == nil)
        manager.addLoader(CorpusLoader(coder: first))
        manager.addLoader(CorpusLoader(coder: second))
        let result = try await manager.load(url, options: .init(), progress: nil)
        #expect(result.image.size.width == 80)
        #expect(first.decodeCount == 0)
        #expect(second.decodeCount == 1)
        manager.removeLoaders { $0 is CorpusLoader }
        #expect(manager.loaders.isEmpty)
    }
}
