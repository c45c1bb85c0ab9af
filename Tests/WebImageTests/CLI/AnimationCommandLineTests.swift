import Foundation
import Testing
@testable import WebImage

/// The animation parts of the `webimage` command: `info`'s `durations`, `decode --frame`
/// and `frames`. Runs the real binary beside the test bundle.
@Suite struct AnimationCommandLineTests {
    func corpusPath(_ name: String) -> String {
        Corpus.directory.appendingPathComponent(name).path
    }

    func temporaryURL(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("webimage-anim-\(UUID().uuidString)-\(name)")
    }

    @Test func infoListsEveryFrameDuration() throws {
        let result = try WebImageCommand.run("info", corpusPath("TestAnimatedImageMemory.webp"), "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let durations = try #require(object["durations"] as? [Double])
        let expected = try CodersManager.shared.decode(Corpus.data("TestAnimatedImageMemory.webp")).frames.map(\.duration)
        #expect(durations.count == 16)
        #expect(durations == expected)
        #expect(object["frameCount"] as? Int == 16)
    }

    @Test func infoLeavesDurationsOutForStillImages() throws {
        let result = try WebImageCommand.run("info", corpusPath("TestImage.png"), "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["durations"] == nil)
        #expect(object["frameCount"] as? Int == 1)
    }

    @Test func decodeWritesTheRequestedFrame() throws {
        let output = temporaryURL("frame.png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("decode", corpusPath("TestImageAnimated.apng"), "--frame", "57", "-o", output.path)
        #expect(result.status == 0, "\(result.stderr)")
        let written = try CodersManager.shared.decode(Data(contentsOf: output))
        let expected = try CodersManager.shared.decode(Corpus.data("TestImageAnimated.apng")).frames[57].pixels
        #expect(written.pixels == expected)
    }

    @Test func decodeRefusesAFramePastTheEnd() throws {
        let output = temporaryURL("none.png")
        let result = try WebImageCommand.run("decode", corpusPath("TestLoopCount.gif"), "--frame", "2", "-o", output.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("past the last frame"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// A negative index is refused by the option's name; the parser used to take `-1` for a
    /// flag and answer "Missing value for '--frame <frame>'".
    @Test(arguments: ["--frame", "--page"])
    func decodeRefusesANegativeIndexByName(_ option: String) throws {
        let output = temporaryURL("negative.png")
        let result = try WebImageCommand.run("decode", corpusPath("TestLoopCount.gif"), option, "-1", "-o", output.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(option) must be 0 or more"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func framesWritesEveryFrameAsNumberedPNGs() throws {
        let directory = temporaryURL("frames")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try WebImageCommand.run("frames", corpusPath("TestImage.gif"), "-o", directory.path)
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == (0..<5).map { "frame-00\($0).png" })
        let expected = try CodersManager.shared.decode(Corpus.data("TestImage.gif")).frames
        for (index, name) in names.enumerated() {
            let frame = try CodersManager.shared.decode(Data(contentsOf: directory.appendingPathComponent(name)))
            #expect(frame.pixels == expected[index].pixels, "\(name)")
        }
    }

    /// A review's finding: `-` (standard output everywhere else) made a folder called "-".
    /// A usage error now, with nothing made.
    @Test func framesRefusesStandardOutput() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let result = try WebImageCommand.run(["frames", corpusPath("TestImage.gif"), "-o", "-"], directory: folder.url)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("-o - (standard output) cannot hold them"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }

    /// A review's finding: `decode -o x.jpg` wrote PNG bytes under a JPEG's name. An image
    /// extension other than .png is a usage error; any other name (or none) is written.
    @Test func decodeRefusesAnOutputNamedForAnotherFormat() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for name in ["x.jpg", "x.WEBP", "a.b/x.tiff"] {
            let result = try WebImageCommand.run(["decode", corpusPath("TestImage.gif"), "-o", name], directory: folder.url)
            #expect(result.status == 64, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("decode writes PNG"), "\(name): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        for name in ["x.png", "x.PNG", "x", ".jpg", "x.out"] {
            let result = try WebImageCommand.run(["decode", corpusPath("TestImage.gif"), "-o", name], directory: folder.url)
            #expect(result.status == 0, "\(name): \(result.stderr)")
        }
    }

    @Test func framesReportsBadInputOnOneLine() throws {
        let bad = temporaryURL("bad.gif")
        try Data("GIF89a".utf8).write(to: bad)
        defer { try? FileManager.default.removeItem(at: bad) }
        let result = try WebImageCommand.run("frames", bad.path, "-o", temporaryURL("out").path)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("webimage: error:"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
