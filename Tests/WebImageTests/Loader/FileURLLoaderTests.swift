import Foundation
import Testing
@testable import WebImage

@Suite("FileURLLoader")
struct FileURLLoaderTests {
    @Test func loadsAFileAndReportsProgress() async throws {
        let url = Corpus.directory.appendingPathComponent("TestImage.jpg")
        let loader = FileURLLoader()
        #expect(loader.canLoad(url))
        let log = ProgressLog()
        let result = try await loader.load(url, options: DownloadRequestOptions(), progress: log.handler)
        #expect(result.image.size == ImageSize(width: 80, height: 60))
        #expect(result.data == (try Corpus.data("TestImage.jpg")))
        #expect(log.all.last?.receivedSize == result.data.count)
    }

    @Test func missingFileIsAnIOError() async throws {
        let url = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).png")
        await #expect {
            _ = try await FileURLLoader().load(url, options: DownloadRequestOptions(), progress: nil)
        } throws: { error in
            if case .network = error as? WebImageError { return true }
            return false
        }
    }

    @Test func fileLargerThanTheLimitIsRefused() async throws {
        let url = Corpus.directory.appendingPathComponent("TestImage.png")
        await #expect(throws: WebImageError.responseTooLarge(limit: 1000)) {
            _ = try await FileURLLoader(maximumFileSize: 1000).load(url, options: DownloadRequestOptions(), progress: nil)
        }
    }

    @Test func refusesOtherSchemes() throws {
        #expect(!FileURLLoader().canLoad(try #require(URL(string: "https://127.0.0.1/a.png"))))
    }
}
