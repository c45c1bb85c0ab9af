import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import WebImage

/// ``BodyFileSink`` on its own: a body streamed into a disk-cache entry is committed when
/// the download still has a caller, and dropped (nothing on disk, the future failing with
/// `.cancelled`) when every caller cancelled after the last byte arrived, a moment no
/// loopback timing reaches reliably. Before the check, that body was committed into the
/// destination of a caller who had left.
@Suite struct BodyFileSinkTests {
    static func stream(_ body: Data, stillWanted: Bool, into disk: DiskCache) async throws -> Result<URL, any Error> {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let sink = BodyFileSink(destination: DiskCacheEntryDestination(cache: disk, key: "k"), bufferSize: 1_000)
        for start in stride(from: 0, to: body.count, by: 700) {
            let chunk = ByteBuffer(bytes: body[start..<min(start + 700, body.count)])
            try await eventLoop.flatSubmit { sink.append(chunk, on: eventLoop) }.get()
        }
        return await Result(catching: { try await eventLoop.flatSubmit { sink.finish(on: eventLoop) { stillWanted } }.get() })
    }

    @Test func aWantedBodyIsCommittedAndAnUnwantedOneLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let disk = DiskCache(directory: directory.url)
        let body = Data((0..<5_000).map { UInt8($0 % 251) })

        let unwanted = try await Self.stream(body, stillWanted: false, into: disk)
        #expect(throws: WebImageError.cancelled) { try unwanted.get() }
        #expect(disk.data(forKey: "k") == nil)
        #expect(FileIO.names(in: directory.path).isEmpty, "no entry and no temporary file")

        let wanted = try await Self.stream(body, stillWanted: true, into: disk)
        #expect(try wanted.get() == disk.fileURL(forKey: "k"))
        #expect(disk.data(forKey: "k") == body)
    }
}

extension Result where Failure == any Error {
    /// The result of an `async` throwing body.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
