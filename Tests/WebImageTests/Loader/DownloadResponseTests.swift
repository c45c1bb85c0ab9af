import Foundation
import NIOHTTP1
import Testing
@testable import WebImage

/// The header fields a response check reads, parsed as HTTP writes them (optional white
/// space around values, parameters after the media type, any letter case).
@Suite struct DownloadResponseTests {
    private func response(_ headers: [(String, String)]) throws -> DownloadResponse {
        DownloadResponse(url: try #require(URL(string: "http://127.0.0.1/a.png")), statusCode: 200, headers: HTTPHeaders(headers))
    }

    @Test(arguments: [
        ("image/png", "image/png"),
        ("  image/PNG\t", "image/png"),
        ("image/jpeg; charset=binary", "image/jpeg"),
        ("\tImage/WebP ;q=1", "image/webp"),
        ("  ", nil),
        (";charset=utf-8", nil),
        ("image/sv\u{E9}g ", "image/sv\u{E9}g"),
    ] as [(String, String?)])
    func mimeTypeIsTheTrimmedLowercasedMediaType(_ value: String, _ expected: String?) throws {
        #expect(try response([("Content-Type", value)]).mimeType == expected)
    }

    @Test func mimeTypeIsNilWithoutAContentType() throws {
        #expect(try response([]).mimeType == nil)
    }

    @Test(arguments: [
        ("1234", 1234),
        (" 1234\t", 1234),
        ("\t\t0 ", 0),
        ("-1", nil),
        ("12 34", nil),
        ("abc", nil),
        ("", nil),
        ("99999999999999999999999", nil),
    ] as [(String, Int?)])
    func expectedContentLengthIsTheTrimmedNonNegativeNumber(_ value: String, _ expected: Int?) throws {
        #expect(try response([("content-length", value)]).expectedContentLength == expected)
    }

    @Test func expectedContentLengthIsNilWithoutTheHeader() throws {
        #expect(try response([("Content-Type", "image/png")]).expectedContentLength == nil)
    }
}
