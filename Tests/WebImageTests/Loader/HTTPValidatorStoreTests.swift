import Foundation
import NIOHTTP1
import Testing
@testable import WebImage

/// What the downloader remembers to make a revalidation conditional.
@Suite struct HTTPValidatorStoreTests {
    private func url(_ index: Int) throws -> URL {
        try #require(URL(string: "http://127.0.0.1/\(index).png"))
    }

    @Test func recordsBothValidatorsAndAddsThemAsConditions() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", "\"v1\""), ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")]), for: try url(1))
        var headers = HTTPHeaders([("Accept", "image/*")])
        store.addConditions(for: try url(1), to: &headers)
        #expect(headers.first(name: "If-None-Match") == "\"v1\"")
        #expect(headers.first(name: "If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")
        var other = HTTPHeaders()
        store.addConditions(for: try url(2), to: &other)
        #expect(other.isEmpty)
    }

    /// The manager's records answer only for the bytes they were recorded with: another
    /// version (even of the same length) gets none, so its refresh asks unconditionally.
    @Test func validatorsTiedToBytesAnswerOnlyForThoseBytes() {
        let store = HTTPValidatorStore()
        let version1 = Data([1, 2, 3, 4])
        store.record(HTTPValidators(entityTag: "\"v1\""), forKey: "image-key", describing: version1)
        #expect(store.validators(forKey: "image-key", describing: version1)?.entityTag == "\"v1\"")
        #expect(store.validators(forKey: "image-key", describing: Data([1, 2, 3, 5])) == nil)
        #expect(store.validators(forKey: "image-key", describing: Data([1, 2, 3])) == nil)
        #expect(store.validators(forKey: "other-key", describing: version1) == nil)
        // Recorded without bytes (the downloader's way), they answer for none.
        store.record(HTTPValidators(entityTag: "\"v2\""), forKey: "image-key", describing: nil)
        #expect(store.validators(forKey: "image-key", describing: version1) == nil)
    }

    @Test func headerNamesMatchInAnyCaseAndOnlyWhole() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([
            ("X-ETag", "\"no\""), ("ETags", "\"no\""), ("Last-Modifie", "no"), ("etag", "\"v1\""),
            ("LAST-MODIFIED", "Wed, 21 Oct 2015 07:28:00 GMT"), ("ETag", "\"second\""),
        ]), for: try url(1))
        let validators = store.validators(for: try url(1))
        #expect(validators?.entityTag == "\"v1\"")
        #expect(validators?.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    @Test func aRequestsOwnConditionWinsAndIsNotDuplicated() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", "\"v1\"")]), for: try url(1))
        var headers = HTTPHeaders([("If-None-Match", "\"mine\"")])
        store.addConditions(for: try url(1), to: &headers)
        #expect(headers[canonicalForm: "If-None-Match"] == ["\"mine\""])
    }

    @Test func aResponseWithoutValidatorsForgetsTheOldOnes() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", "\"v1\"")]), for: try url(1))
        store.record(HTTPHeaders([("Content-Type", "image/png")]), for: try url(1))
        #expect(store.validators(for: try url(1)) == nil)
    }

    @Test func oversizedOrMultiLineValuesAreNotKept() throws {
        let store = HTTPValidatorStore()
        store.record(HTTPHeaders([("ETag", String(repeating: "x", count: 2000))]), for: try url(1))
        #expect(store.validators(for: try url(1)) == nil)
        store.record(HTTPHeaders([("ETag", "\"a\"\r\nX-Evil: 1")]), for: try url(2))
        #expect(store.validators(for: try url(2)) == nil)
    }

    @Test func keepsOnlyTheMostRecentlyUsedURLs() throws {
        let store = HTTPValidatorStore(capacity: 3)
        for index in 0..<3 { store.record(HTTPHeaders([("ETag", "\"\(index)\"")]), for: try url(index)) }
        _ = store.validators(for: try url(0))
        store.record(HTTPHeaders([("ETag", "\"3\"")]), for: try url(3))
        #expect(store.validators(for: try url(1)) == nil)
        #expect(store.validators(for: try url(0))?.entityTag == "\"0\"")
        #expect(store.validators(for: try url(3))?.entityTag == "\"3\"")
    }

    /// URLs are the keys and can be tens of kilobytes each: the store is bounded in bytes
    /// as well as in count, and a URL larger than the whole budget is not kept at all.
    @Test func keepsURLsWithinAByteBudget() throws {
        let store = HTTPValidatorStore(capacity: 1000, byteLimit: 10_000)
        let long = { (index: Int) in try #require(URL(string: "https://a.test/\(index)?" + String(repeating: "q", count: 3_000))) }
        for index in 0..<5 { store.record(HTTPHeaders([("ETag", "\"\(index)\"")]), for: try long(index)) }
        // Each entry is about 3 KB: three fit in 10,000 bytes, the two oldest went.
        #expect(store.validators(for: try long(0)) == nil)
        #expect(store.validators(for: try long(1)) == nil)
        for index in 2..<5 { #expect(store.validators(for: try long(index))?.entityTag == "\"\(index)\"") }

        let huge = try #require(URL(string: "https://a.test/x?" + String(repeating: "q", count: 20_000)))
        store.record(HTTPHeaders([("ETag", "\"h\"")]), for: huge)
        #expect(store.validators(for: huge) == nil)
        #expect(store.validators(for: try long(4)) != nil, "a refused entry evicts nothing")
    }
}
