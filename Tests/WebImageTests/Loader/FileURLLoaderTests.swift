import Foundation
import Testing
@testable import WebImage

@Suite("FileURLLoader")
struct FileURLLoaderTests {
    /// `Int.max` is "no limit" (the image server's `WEBIMAGE_MAX_SRC_FILE_SIZE` accepts it):
    /// reading one byte past it overflowed and trapped on every file; a negative limit
    /// trapped converting to UInt64. Both now read or refuse like any other limit.
    @Test func theLargestAndANegativeLimitReadOrRefuse() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-limit-\(UUID().uuidString).bin")
        try Data([1, 2, 3]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try FileURLLoader.read(file, limit: .max) == Data([1, 2, 3]))
        #expect(throws: WebImageError.responseTooLarge(limit: 0)) { try FileURLLoader.read(file, limit: -5) }
    }

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

    /// SDWebImage applies the decryptor whatever the loader: a file of base64 text decodes.
    @Test func theDecryptorRunsOnFileBytesToo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let jpeg = try Corpus.data("TestImage.jpg")
        let file = directory.url.appendingPathComponent("wrapped.b64")
        try Data(jpeg.base64EncodedString(options: .lineLength76Characters).utf8).write(to: file)
        var options = DownloadRequestOptions()
        options.decryptor = .base64
        let result = try await FileURLLoader().load(file, options: options, progress: nil)
        #expect(result.data == jpeg)
        #expect(result.image.size == ImageSize(width: 80, height: 60))
        options.decryptor = Decryptor { _, response in
            #expect(response == nil, "a file has no response head")
            return nil
        }
        await #expect(throws: WebImageError.badImageData("the decryptor returned no data")) {
            _ = try await FileURLLoader().load(file, options: options, progress: nil)
        }
        // Through the manager, the context's decryptor reaches the file loader.
        let manager = ImageManager(cache: ImageCache(namespace: "decrypt", directory: directory.url), loader: LoadersManager(loaders: [FileURLLoader()]))
        var context = ImageContext()
        context.decryptor = .base64
        let loaded = try await manager.loadImage(with: file, options: .fromLoaderOnly, context: context)
        #expect(loaded.image.size == ImageSize(width: 80, height: 60))
        await manager.waitForBackgroundStores()
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

    @Test(arguments: ["/dev/zero", "/tmp"])
    func somethingOtherThanARegularFileIsAnIOError(path: String) async throws {
        // /dev/zero reports size 0 and was read up to the size limit; /tmp failed as too large.
        await #expect {
            _ = try await FileURLLoader().load(URL(fileURLWithPath: path), options: DownloadRequestOptions(), progress: nil)
        } throws: { error in
            guard case .network(let reason, _) = error as? WebImageError else { return false }
            return reason.contains("not a regular file")
        }
    }

    @Test func fifoWithoutAWriterFailsAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fileloader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pipe.png").path
        #expect(mkfifo(path, 0o600) == 0)
        let (outcome, hung) = await FIFOWatch.run(releasing: path) {
            Result { try FileURLLoader.read(URL(fileURLWithPath: path), limit: 1024) }
        }
        #expect(!hung, "opening a FIFO with no writer waited for one")
        #expect {
            _ = try outcome.get()
        } throws: { error in
            guard case .network(let reason, _) = error as? WebImageError else { return false }
            return reason.contains("not a regular file")
        }
    }

    @Test func refusesOtherSchemes() throws {
        #expect(!FileURLLoader().canLoad(try #require(URL(string: "https://127.0.0.1/a.png"))))
    }
}
