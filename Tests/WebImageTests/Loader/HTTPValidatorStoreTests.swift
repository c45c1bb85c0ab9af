import Foundation
import NIOHTTP1
import Testing
@testable import WebImage

/// What the downloader remembers to make a revalidation conditional.
@Suite struct HTTPValidatorStoreTests {
    /// The body the validators came with, and the bytes a revalidation holds.
    static let body = Data("version one".utf8)

    private func url(_ index: Int) throws -> URL {
        try #require(URL(string: "http://127.0.0.1/\(index).png"))
    }

    @Test func recordsBothValidatorsAndAddsThemAsConditions() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", "\"v1\""), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")]), for: try url(1), body: Self.body)
        var headers = HTTPHeaders([("Accept", "image/*")])
        store.addConditions(for: try url(1), cachedData: Self.body, to: &headers)
        #expect(headers.first(name: "If-None-Match") == "\"v1\"")
        #expect(headers.first(name: "If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")
        var other = HTTPHeaders()
        store.addConditions(for: try url(2), cachedData: Self.body, to: &other)
        #expect(other.isEmpty)
    }

    @Test func headerNamesMatchInAnyCaseAndOnlyWhole() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([
            ("X-ETag", "\"no\""), ("ETags", "\"no\""), ("Last-Modifie", "no"), ("etag", "\"v1\""),
            ("LAST-MODIFIED", "Wed, 21 Oct 2015 07:28:00 GMT"), ("ETag", "\"second\""),
        ]), for: try url(1), body: Self.body)
        let validators = store.validators(for: try url(1))
        #expect(validators?.entityTag == "\"v1\"")
        #expect(validators?.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    @Test func aRequestsOwnConditionWinsAndIsNotDuplicated() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", "\"v1\"")]), for: try url(1), body: Self.body)
        var headers = HTTPHeaders([("If-None-Match", "\"mine\"")])
        store.addConditions(for: try url(1), cachedData: Self.body, to: &headers)
        #expect(headers[canonicalForm: "If-None-Match"] == ["\"mine\""])
    }

    @Test func aResponseWithoutValidatorsForgetsTheOldOnes() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", "\"v1\"")]), for: try url(1), body: Self.body)
        store.record(HTTPHeaders([("Content-Type", "image/png")]), for: try url(1), body: Self.body)
        #expect(store.validators(for: try url(1)) == nil)
    }

    @Test func oversizedOrMultiLineValuesAreNotKept() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", String(repeating: "x", count: 2000))]), for: try url(1), body: Self.body)
        #expect(store.validators(for: try url(1)) == nil)
        store.record(HTTPHeaders([("ETag", "\"a\"\r\nX-Evil: 1")]), for: try url(2), body: Self.body)
        #expect(store.validators(for: try url(2)) == nil)
    }

    @Test func keepsOnlyTheMostRecentlyUsedURLs() throws {
        let store = HTTPValidatorStore(capacity: 3)
        for index in 0..<3 { store.record(HTTPHeaders([("ETag", "\"\(index)\"")]), for: try url(index), body: Self.body) }
        _ = store.validators(for: try url(0))
        store.record(HTTPHeaders([("ETag", "\"3\"")]), for: try url(3), body: Self.body)
        #expect(store.validators(for: try url(1)) == nil)
        #expect(store.validators(for: try url(0))?.entityTag == "\"0\"")
        #expect(store.validators(for: try url(3))?.entityTag == "\"3\"")
    }

    /// URLs are the keys and can be tens of kilobytes each: the store is bounded in bytes
    /// as well as in count, and a URL larger than the whole budget is not kept at all.
    @Test func keepsURLsWithinAByteBudget() throws {
        let store = HTTPValidatorStore(capacity: 1000, byteLimit: 10_000)
        let long = { (index: Int) in try #require(URL(string: "https://a.test/\(index)?" + String(repeating: "q", count: 3_000))) }
        for index in 0..<5 { store.record(HTTPHeaders([("ETag", "\"\(index)\"")]), for: try long(index), body: Self.body) }
        // Each entry is about 3 KB: three fit in 10,000 bytes, the two oldest went.
        #expect(store.validators(for: try long(0)) == nil)
        #expect(store.validators(for: try long(1)) == nil)
        for index in 2..<5 { #expect(store.validators(for: try long(index))?.entityTag == "\"\(index)\"") }

        let huge = try #require(URL(string: "https://a.test/x?" + String(repeating: "q", count: 20_000)))
        store.record(HTTPHeaders([("ETag", "\"h\"")]), for: huge, body: Self.body)
        #expect(store.validators(for: huge) == nil)
        #expect(store.validators(for: try long(4)) != nil, "a refused entry evicts nothing")
    }

    /// A review's finding: any caller's download recorded the URL's validators, and a
    /// revalidation of other bytes (a cache still holding version 1 after another caller
    /// saw version 2) asked with them; the 304 kept version 1 for good. The conditions go
    /// only with the bytes they came with now, or with a streamed body's (not examined).
    @Test func conditionsGoOnlyWithTheBytesTheyCameWith() throws {
        let store = HTTPValidatorStore()
        let second = Data("version two!".utf8)
        store.record(HTTPHeaders([("ETag", "\"v2\"")]), for: try url(1), body: second)
        var stale = HTTPHeaders()
        store.addConditions(for: try url(1), cachedData: Self.body, to: &stale)
        #expect(stale.first(name: "If-None-Match") == nil, "version 1 is not what \"v2\" describes")
        var current = HTTPHeaders()
        store.addConditions(for: try url(1), cachedData: second, to: &current)
        #expect(current.first(name: "If-None-Match") == "\"v2\"")

        // Same length, same first and last 4 KiB: a different fingerprint still needs a
        // change at an edge, and one there is told apart.
        var large = Data(repeating: 7, count: 20_000)
        store.record(HTTPHeaders([("ETag", "\"big\"")]), for: try url(2), body: large)
        large[large.count - 1] = 8
        var edited = HTTPHeaders()
        store.addConditions(for: try url(2), cachedData: large, to: &edited)
        #expect(edited.first(name: "If-None-Match") == nil)

        store.record(HTTPHeaders([("ETag", "\"streamed\"")]), for: try url(3), body: nil)
        var streamed = HTTPHeaders()
        store.addConditions(for: try url(3), cachedData: Self.body, to: &streamed)
        #expect(streamed.first(name: "If-None-Match") == "\"streamed\"")
    }
}
