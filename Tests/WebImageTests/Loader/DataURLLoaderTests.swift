import Foundation
import Testing
@testable import WebImage

@Suite("DataURLLoader")
struct DataURLLoaderTests {
    let png: Data

    init() throws {
        png = try Corpus.data("TestImage.png")
    }

    @Test func loadsABase64DataURL() async throws {
        let url = try #require(URL(string: "data:image/png;base64," + png.base64EncodedString()))
        let loader = DataURLLoader()
        #expect(loader.canLoad(url))
        let result = try await loader.load(url, options: DownloadRequestOptions(), progress: nil)
        #expect(result.data == png)
        #expect(result.image.size == ImageSize(width: 300, height: 300))
        #expect(result.metrics == nil)
    }

    @Test func loadsAPercentEncodedDataURLWithBinaryBytes() async throws {
        let escaped = png.map { String(format: "%%%02X", $0) }.joined()
        let url = try #require(URL(string: "data:image/png," + escaped))
        var options = DownloadRequestOptions()
        options.decodeOptions.thumbnailPixelSize = ImageSize(width: 30, height: 30)
        let result = try await DataURLLoader().load(url, options: options, progress: nil)
        #expect(result.data == png)
        #expect(result.image.size == ImageSize(width: 30, height: 30))
    }

    @Test func percentDecodingKeepsUnescapedCharacters() throws {
        #expect(try DataURLLoader.payload(of: "data:,a%20b+c") == Data("a b+c".utf8))
        #expect(try DataURLLoader.payload(of: "data:text/plain;charset=utf-8;base64,aGk=") == Data("hi".utf8))
    }

    @Test(arguments: ["data:image/png;base64", "data:,%4", "data:,%zz", "data:;base64,@@@@"])
    func malformedDataURLsAreInvalid(_ text: String) throws {
        #expect {
            try DataURLLoader.payload(of: text)
        } throws: { error in
            if case .invalidURL = error as? WebImageError { return true }
            return false
        }
    }

    @Test func aPayloadOverTheLimitIsRefusedBeforeDecoding() async throws {
        let url = try #require(URL(string: "data:image/png;base64," + png.base64EncodedString()))
        await #expect(throws: WebImageError.responseTooLarge(limit: png.count - 1)) {
            _ = try await DataURLLoader(maximumSize: png.count - 1).load(url, options: DownloadRequestOptions(), progress: nil)
        }
        #expect(try await DataURLLoader(maximumSize: png.count).load(url, options: DownloadRequestOptions(), progress: nil).data == png)
        // Percent-encoded payloads are measured as decoded bytes, not as their longer text.
        #expect(try DataURLLoader.payload(of: "data:,%41%42%43", limit: 3) == Data("ABC".utf8))
        #expect(throws: WebImageError.responseTooLarge(limit: 2)) { try DataURLLoader.payload(of: "data:,%41%42%43", limit: 2) }
        // Base64 with padding: "aGk=" is 2 bytes, within a limit of 2; "aGkh" is 3.
        #expect(try DataURLLoader.payload(of: "data:;base64,aGk=", limit: 2) == Data("hi".utf8))
        #expect(throws: WebImageError.responseTooLarge(limit: 2)) { try DataURLLoader.payload(of: "data:;base64,aGkh", limit: 2) }
        // Payloads over the limit whose ends are malformed: decoding them first would find
        // the bad end and throw invalidURL, so responseTooLarge shows the text was measured
        // before it was decoded (the check after decoding gives the same error otherwise).
        let base64 = "data:;base64," + png.base64EncodedString() + "@@@@"
        #expect(throws: WebImageError.responseTooLarge(limit: png.count - 1)) { try DataURLLoader.payload(of: base64, limit: png.count - 1) }
        let escaped = "data:," + String(repeating: "%41", count: 100) + "%zz"
        #expect(throws: WebImageError.responseTooLarge(limit: 50)) { try DataURLLoader.payload(of: escaped, limit: 50) }
        #expect(DataURLLoader().maximumSize == 100 * 1024 * 1024)
    }

    @Test func theDecryptorRunsOnTheDecodedPayload() async throws {
        // A percent-encoded payload whose bytes are base64 text: the decryptor unwraps it.
        let wrapped = png.base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let url = try #require(URL(string: "data:text/plain," + wrapped))
        var options = DownloadRequestOptions()
        options.decryptor = .base64
        let result = try await DataURLLoader().load(url, options: options, progress: nil)
        #expect(result.data == png)
        await #expect(throws: WebImageError.self) {
            _ = try await DataURLLoader().load(url, options: DownloadRequestOptions(), progress: nil)
        }
    }

    @Test func dataThatIsNotAnImageIsBadImageData() async throws {
        let url = try #require(URL(string: "data:text/plain,hello"))
        await #expect {
            _ = try await DataURLLoader().load(url, options: DownloadRequestOptions(), progress: nil)
        } throws: { error in
            if case .badImageData = error as? WebImageError { return true }
            return false
        }
    }

    @Test func refusesOtherSchemes() throws {
        #expect(!DataURLLoader().canLoad(try #require(URL(string: "http://127.0.0.1/a.png"))))
    }
}
