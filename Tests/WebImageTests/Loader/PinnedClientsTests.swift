import Foundation
import Testing
@testable import WebImage

/// The bookkeeping of pinned downloads' clients, with numbers for clients: reuse per host
/// and pin, a client in use never handed back, idle clients beyond the limit handed back
/// least recently used first.
@Suite struct PinnedClientsTests {
    typealias Key = PinnedClients<Int>.Key

    static func operation(_ path: String) throws -> DownloadOperation {
        let url = try #require(URL(string: "http://h.example" + path))
        return DownloadOperation(key: DownloadOperation.Key(url: url, allowsInvalidCertificates: false, pinnedAddress: "192.0.2.1"), requestOptions: DownloadRequestOptions())
    }

    static func key(_ host: String, _ address: String = "192.0.2.1") -> Key {
        Key(host: host, address: address, allowsInvalidCertificates: false)
    }

    @Test func aPinIsReusedAndAnotherPinGetsItsOwnClient() throws {
        var clients = PinnedClients<Int>()
        let (first, second, third) = (try Self.operation("/1"), try Self.operation("/2"), try Self.operation("/3"))
        #expect(clients.acquire(Self.key("a.example"), for: first) == nil)
        #expect(clients.insert(1, Self.key("a.example"), for: first) == (1, nil))
        #expect(clients.release(first).isEmpty)
        #expect(clients.acquire(Self.key("a.example"), for: second) == 1)
        #expect(clients.acquire(Self.key("a.example", "192.0.2.2"), for: third) == nil)
        #expect(clients.count == 1)
    }

    @Test func aClientMadeTwiceForOnePinKeepsTheFirst() throws {
        var clients = PinnedClients<Int>()
        let (first, second) = (try Self.operation("/1"), try Self.operation("/2"))
        #expect(clients.insert(1, Self.key("a.example"), for: first) == (1, nil))
        #expect(clients.insert(2, Self.key("a.example"), for: second) == (1, 2))
        #expect(clients.release(first).isEmpty && clients.release(second).isEmpty)
        #expect(clients.removeAll() == [1])
    }

    @Test func idleClientsBeyondTheLimitAreHandedBackOldestFirstAndBusyOnesNever() throws {
        var clients = PinnedClients<Int>(idleLimit: 2)
        let busy = try Self.operation("/busy")
        _ = clients.insert(0, Self.key("busy.example"), for: busy)
        var evicted: [Int] = []
        for index in 1...4 {
            let operation = try Self.operation("/\(index)")
            _ = clients.insert(index, Self.key("h\(index).example"), for: operation)
            evicted += clients.release(operation)
        }
        #expect(evicted == [1, 2])
        #expect(clients.count == 3)
        #expect(clients.removeAll().sorted() == [0, 3, 4])
        #expect(clients.count == 0)
    }
}
