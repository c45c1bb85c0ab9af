import Foundation
import Testing
@testable import WebImage

/// The `webimage` command's contract: the JSON keys of `info`, the files `decode` and
/// `encode` write, and one line on stderr with status 1 for bad input. Runs the real
/// binary that `swift build` puts beside the test bundle.
@Suite struct CommandLineTests {
    func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)-\(name)")
    }

    func corpusPath(_ name: String) -> String {
        Corpus.directory.appendingPathComponent(name).path
    }

    func decodedFile(_ url: URL) throws -> Image {
        try CodersManager.shared.decode(Data(contentsOf: url))
    }

    @Test func infoPrintsTheJSONContract() throws {
        let result = try WebImageCommand.run("info", corpusPath("TestJFIF.jpg"), "--json")
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == [
            "format", "width", "height", "frameCount", "loopCount", "hasAlpha", "orientation", "colorProfile", "metadata",
        ])
        #expect(object["format"] as? String == "jpeg")
        #expect(object["width"] as? Int == 4032)
        #expect(object["height"] as? Int == 3024)
        #expect(object["frameCount"] as? Int == 1)
        #expect(object["hasAlpha"] as? Bool == false)
        #expect(object["orientation"] as? Int == 3)
        let profile = try #require(object["colorProfile"] as? [String: Any])
        #expect(profile["description"] as? String == "Display P3")
        #expect(profile["colorSpace"] as? String == "rgb")
    }

    @Test func infoCountsTheMetadataBlocks() throws {
        let fixture = Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.jpg").path
        let result = try WebImageCommand.run("info", fixture, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let metadata = try #require(object["metadata"] as? [String: Int])
        #expect(Set(metadata.keys) == ["exif", "xmp", "icc"])
        #expect(metadata.values.allSatisfy { $0 > 100 })
        let profile = try #require(object["colorProfile"] as? [String: Any])
        #expect(profile["bytes"] as? Int == metadata["icc"])
        // A file with none of them says so with an empty object.
        let plain = try WebImageCommand.run("info", corpusPath("TestImage.gif"), "--json")
        let plainObject = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect((plainObject["metadata"] as? [String: Int])?.isEmpty == true)
        #expect(plainObject["colorProfile"] == nil)
        // Photoshop's XMP in a PNG's iTXt chunk.
        let png = try WebImageCommand.run("info", corpusPath("TestImage.png"), "--json")
        let pngObject = try #require(try JSONSerialization.jsonObject(with: Data(png.stdout.utf8)) as? [String: Any])
        #expect((pngObject["metadata"] as? [String: Int]).map { Set($0.keys) } == ["xmp"])
    }

    @Test func encodeAndDecodeKeepWhatMetadataSays() throws {
        let fixture = Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.jpg").path
        let output = temporaryFile("metadata.png")
        defer { try? FileManager.default.removeItem(at: output) }
        let expected: [(command: String, choice: String?, groups: Set<String>)] = [
            ("encode", "all", ["EXIF", "XMP", "ICC_Profile"]), ("encode", "icc", ["ICC_Profile"]),
            ("encode", "strip", []), ("encode", nil, []), ("decode", "all", ["EXIF", "XMP", "ICC_Profile"]),
            ("decode", "icc", ["ICC_Profile"]),
        ]
        for (command, choice, groups) in expected {
            var arguments = [command, fixture, "-o", output.path]
            if command == "encode" { arguments += ["--format", "png"] }
            if let choice { arguments += ["--metadata", choice] }
            let result = try WebImageCommand.run(arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let tags = try ExifTool.tags(of: Data(contentsOf: output), ext: "png")
            #expect(ExifTool.blockGroups(tags) == groups, "\(arguments)")
            if groups.contains("EXIF") { #expect(tags["EXIF:Orientation"] as? Int == 1) }
        }
        #expect(try WebImageCommand.run("encode", fixture, "-o", output.path, "--format", "png", "--metadata", "exif").status != 0)
    }

    /// `--cmyk-profile`: CMYK without a profile converts through Coated FOGRA39 by default,
    /// through a profile file given, or naively with `naive`; a file that is not a CMYK
    /// profile fails with one line and status 1.
    @Test func decodeConvertsProfilelessCMYKThroughTheChosenProfile() throws {
        let color = Corpus.fixtures.appendingPathComponent("color")
        let output = temporaryFile("cmyk.png")
        defer { try? FileManager.default.removeItem(at: output) }
        let choices: [(arguments: [String], expected: String)] = [
            ([], "cmyk.jpg.expected.png"),
            (["--cmyk-profile", "naive"], "cmyk.jpg.naive.png"),
            (["--cmyk-profile", color.appendingPathComponent("cmyk-lut.icc").path], "cmyk-profile.jpg.expected.png"),
        ]
        for (arguments, expected) in choices {
            let result = try WebImageCommand.run(["decode", color.appendingPathComponent("cmyk.jpg").path, "-o", output.path] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let reference = try CodersManager.shared.decode(Data(contentsOf: color.appendingPathComponent(expected)))
            #expect(ColorFixtureTests.psnr(try decodedFile(output).pixels, reference.pixels) >= 40, "\(arguments)")
        }
        let rgbProfile = temporaryFile("srgb.icc")
        defer { try? FileManager.default.removeItem(at: rgbProfile) }
        try ColorProfile.sRGB.data.write(to: rgbProfile)
        for notCMYK in [rgbProfile.path, color.appendingPathComponent("srgb.jpg").path, "/nonexistent/profile.icc"] {
            let result = try WebImageCommand.run("decode", color.appendingPathComponent("cmyk.jpg").path, "-o", output.path, "--cmyk-profile", notCMYK)
            #expect(result.status == 1)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }

    @Test func infoCountsFramesAndLoops() throws {
        let result = try WebImageCommand.run("info", corpusPath("TestLoopCount.gif"), "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["frameCount"] as? Int == 2)
        #expect(object["loopCount"] as? Int == 1)
        let webp = try WebImageCommand.run("info", corpusPath("TestAnimatedImageMemory.webp"), "--json")
        #expect(webp.stdout.contains("\"frameCount\":16"))
    }

    @Test func decodeWritesAThumbnailPNG() throws {
        let output = temporaryFile("thumb.png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("decode", corpusPath("TestImageLarge.jpg"), "-o", output.path, "--thumbnail", "400x300")
        #expect(result.status == 0, "\(result.stderr)")
        let image = try decodedFile(output)
        #expect(image.format == .png)
        #expect(image.size == ImageSize(width: 400, height: 263))
    }

    @Test func decodeStretchFitsEachSideSeparately() throws {
        let output = temporaryFile("stretch.png")
        defer { try? FileManager.default.removeItem(at: output) }
        // TestEXIF.png is 150×200: a 100×100 box gives 75×100 with the aspect ratio, 100×100 without.
        #expect(try WebImageCommand.run("decode", corpusPath("TestEXIF.png"), "-o", output.path, "--thumbnail", "100x100").status == 0)
        #expect(try decodedFile(output).size == ImageSize(width: 75, height: 100))
        #expect(try WebImageCommand.run("decode", corpusPath("TestEXIF.png"), "-o", output.path, "--thumbnail", "100x100", "--stretch").status == 0)
        #expect(try decodedFile(output).size == ImageSize(width: 100, height: 100))
    }

    @Test func decodeHonoursTheScaleDownLimit() throws {
        let output = temporaryFile("limited.png")
        defer { try? FileManager.default.removeItem(at: output) }
        // 4032×3024 RGBA within 4 MB: at most 1,000,000 pixels.
        #expect(try WebImageCommand.run("decode", corpusPath("TestJFIF.jpg"), "-o", output.path, "--scale-down-limit", "4000000").status == 0)
        let size = try decodedFile(output).size
        #expect(size.pixelCount <= 1_000_000)
        #expect(size.pixelCount > 990_000)
    }

    @Test func decodeWithoutOrientationKeepsStoredPixels() throws {
        let upright = temporaryFile("upright.png"), stored = temporaryFile("stored.png")
        defer {
            try? FileManager.default.removeItem(at: upright)
            try? FileManager.default.removeItem(at: stored)
        }
        #expect(try WebImageCommand.run("decode", corpusPath("TestJFIF.jpg"), "-o", upright.path, "--thumbnail", "64x64").status == 0)
        #expect(try WebImageCommand.run("decode", corpusPath("TestJFIF.jpg"), "-o", stored.path, "--thumbnail", "64x64",
                                        "--no-orientation").status == 0)
        // Orientation 3 is a half turn: the stored image is the upright one rotated 180°.
        let a = try decodedFile(upright).pixels, b = try decodedFile(stored).pixels
        #expect(ImageOrientation.down.apply(to: b) == a)
        #expect(a != b)
    }

    @Test(arguments: ["jpeg", "png", "webp", "avif"])
    func encodeWritesTheRequestedFormat(_ name: String) throws {
        let output = temporaryFile("out.\(name)")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", output.path, "--format", name, "--quality", "80")
        #expect(result.status == 0, "\(result.stderr)")
        let image = try decodedFile(output)
        #expect(image.format.rawValue == name)
        #expect(image.size == ImageSize(width: 300, height: 300))
    }

    @Test func encodeFitsMaxFileSizeAndMaxPixelSize() throws {
        let output = temporaryFile("small.jpg")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("encode", corpusPath("TestImageLarge.jpg"), "-o", output.path, "--format", "jpeg",
                             "--max-file-size", "30000", "--max-pixel-size", "800")
        #expect(result.status == 0, "\(result.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int ?? .max
        #expect(size <= 30000)
        #expect(try decodedFile(output).size == ImageSize(width: 800, height: 526))
        #expect(result.stderr.isEmpty, "no warning when the limit is met: \(result.stderr)")
    }

    /// A review's finding: a limit the encoder could not meet was passed over in silence.
    /// The smallest output is written (a best effort, as SDWebImage's), with a warning.
    @Test func anUnmetMaxFileSizeIsWrittenWithAWarning() throws {
        let output = temporaryFile("over.png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("encode", corpusPath("TestImage.jpg"), "-o", output.path, "--format", "png", "--max-file-size", "100")
        #expect(result.status == 0, "\(result.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int ?? 0
        #expect(size > 100)
        #expect(result.stderr == "webimage: warning: the smallest output is \(size) bytes, over --max-file-size 100\n", "\(result.stderr)")
    }

    @Test func badInputExitsWithOneLineAndWritesNothing() throws {
        let garbage = temporaryFile("garbage.jpg"), output = temporaryFile("never.png")
        let damagedPDF = temporaryFile("damaged.pdf")
        defer {
            try? FileManager.default.removeItem(at: garbage)
            try? FileManager.default.removeItem(at: damagedPDF)
        }
        let jpeg = try Corpus.data("TestImage.jpg")
        try jpeg.prefix(200).write(to: garbage)
        // A PDF poppler cannot open: its complaint must not reach stderr besides ours.
        try Data("%PDF-1.7\nnot really a document\n".utf8).write(to: damagedPDF)
        for input in [garbage.path, "/nonexistent/file.png", damagedPDF.path] {
            let result = try WebImageCommand.run("decode", input, "-o", output.path)
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.hasPrefix("webimage: error: ") == true)
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    /// An input that is no regular file is refused before a byte is read: `/dev/zero`
    /// never ends (the command read it until memory ran out) and a FIFO with no writer
    /// blocked the command forever.
    @Test func inputThatIsNoRegularFileIsRefusedAtOnce() throws {
        let fifo = temporaryFile("input.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        for input in ["/dev/zero", fifo.path] {
            let result = try WebImageCommand.run("info", input)
            #expect(result.status == 1)
            #expect(result.stderr == "webimage: error: cannot read \(input): not a regular file\n")
        }
        let missing = try WebImageCommand.run("info", "/nonexistent/file.png")
        #expect(missing.stderr.hasPrefix("webimage: error: cannot open /nonexistent/file.png: "), "\(missing.stderr)")
    }

    /// `-` reads the image from standard input and `-o -` writes to standard output, as
    /// ImageMagick and curl take them: both used to be file names (`info -` failed, and
    /// `-o -` made a file called `-`).
    @Test func aDashIsStandardInputAndStandardOutput() throws {
        let jpeg = try Corpus.data("TestImage.jpg")
        let info = try WebImageCommand.run(["info", "-", "--json"], input: jpeg)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("\"format\":\"jpeg\""), "\(info.stdout)")
        let encoded = try WebImageCommand.run(["encode", "-", "-o", "-", "--format", "webp"], input: jpeg)
        #expect(encoded.status == 0, "\(encoded.stderr)")
        // The output is read back as text: the format's ASCII tags survive that.
        #expect(encoded.stdout.hasPrefix("RIFF") && encoded.stdout.contains("WEBP"))
        let decoded = try WebImageCommand.run(["decode", "-", "-o", "-", "--thumbnail", "16x16"], input: jpeg)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stdout.contains("PNG") && decoded.stdout.contains("IHDR"))
    }

    /// `--cmyk-profile` goes through the input files' reader: a FIFO hung the command, and
    /// `/dev/zero` ran it out of memory.
    @Test func aCMYKProfileThatIsNoRegularFileIsRefusedAtOnce() throws {
        let fifo = temporaryFile("profile.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        let output = temporaryFile("out.png")
        defer { try? FileManager.default.removeItem(at: output) }
        for profile in ["/dev/zero", fifo.path] {
            let result = try WebImageCommand.run("decode", corpusPath("TestImage.jpg"), "-o", output.path, "--cmyk-profile", profile)
            #expect(result.status != 0)
            #expect(result.stderr.contains("not a regular file"), "\(result.stderr)")
        }
    }

    /// Numbers that used to mean "no limit" without saying so are usage errors.
    @Test func limitsThatMeanNothingAreUsageErrors() throws {
        let output = temporaryFile("limit.png")
        defer { try? FileManager.default.removeItem(at: output) }
        for limit in ["0", "-5"] {
            let result = try WebImageCommand.run("decode", corpusPath("TestImage.jpg"), "-o", output.path, "--scale-down-limit", limit)
            #expect(result.status == 64, "\(limit): \(result.stderr)")
        }
        let cache = temporaryFile("trim-cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        #expect(try WebImageCommand.run("cache", "trim", "--directory", cache.path, "--max-age", "nan").status == 64)
        #expect(try WebImageCommand.run("cache", "trim", "--directory", cache.path, "--max-size", "-1").status == 64)
    }

    @Test func hugeDeclaredSizeIsRefused() throws {
        // A PNG header claiming 60000×60000: refused from the header, exit status 1.
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        png.append(contentsOf: Array("IHDR".utf8))
        png.append(contentsOf: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60, 8, 6, 0, 0, 0, 0, 0, 0, 0])
        let input = temporaryFile("huge.png")
        defer { try? FileManager.default.removeItem(at: input) }
        try png.write(to: input)
        let result = try WebImageCommand.run("info", input.path, "--json")
        #expect(result.status == 1)
        #expect(result.stderr.contains("too large"))
    }

    /// `info`, `frames` and `cache` printed with `print`, whose failure nobody saw: with
    /// standard output on a full device they exited 0 having written nothing.
    @Test(arguments: [
        ["info", "TestImage.png"], ["info", "TestImage.png", "--json"], ["frames", "TestImage.gif", "-o", "FOLDER"],
        ["cache", "info", "--directory", "FOLDER"], ["cache", "info", "--directory", "FOLDER", "--json"],
        ["cache", "clear", "--directory", "FOLDER"], ["cache", "trim", "--directory", "FOLDER"],
    ])
    func aFailedWriteToStandardOutputIsAnError(_ template: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // The cache commands get an existing (empty) cache to describe.
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("default"), withIntermediateDirectories: true)
        let arguments = template.map { $0 == "FOLDER" ? folder.path : $0.hasPrefix("Test") ? corpusPath($0) : $0 }
        // Writing to /dev/full fails with ENOSPC; it is only written to, never replaced.
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }
        let result = try WebImageCommand.run(arguments, standardOutput: full)
        #expect(result.status == 1, "\(template): \(result.stderr)")
        #expect(result.stderr.contains("cannot write to standard output: No space left on device"), "\(template): \(result.stderr)")
    }

    /// `encode --format` listed the case names (`jpegXL`, which the parser refused, and
    /// `undefined`) and not `jxl`; the list is now the parser's own, and every name on it
    /// is taken.
    @Test func encodeHelpListsExactlyTheFormatsItTakes() throws {
        let help = try WebImageCommand.run("encode", "--help")
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let listed = try #require(text.firstRange(of: "as magick and vips take it). (values: ").map { text[$0.upperBound...] }?
            .prefix { $0 != ")" })
        let names = listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(names == ["jpeg", "jpg", "png", "gif", "webp", "avif", "heic", "jxl", "bmp"])

        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for name in names {
            let result = try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", folder.url.appendingPathComponent("out").path,
                                                 "--format", name, "--max-pixel-size", "16")
            #expect(result.status == 0, "--format \(name): \(result.stderr)")
        }
        // A name the parser refuses is a usage error that lists the same names. (`jpegXL`,
        // the name `info` prints, is taken without being listed: see below.)
        for name in ["undefined", "tiff", "svg"] {
            let result = try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", folder.url.appendingPathComponent("out").path,
                                                 "--format", name)
            #expect(result.status == 64, "--format \(name): \(result.stderr)")
            #expect(result.stderr.contains("- jxl"), "--format \(name): \(result.stderr)")
        }
    }

    /// From a review against magick and vips: `encode` takes the format from `-o`'s
    /// extension, refuses an extension that names another format than `--format`, and a
    /// quality meant on the library's 0-1 scale.
    @Test func encodeTakesTheFormatFromTheOutputName() throws {
        let webp = temporaryFile("out.webp")
        defer { try? FileManager.default.removeItem(at: webp) }
        let inferred = try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", webp.path)
        #expect(inferred.status == 0, "\(inferred.stderr)")
        #expect(ImageFormat(sniffing: try Data(contentsOf: webp)) == .webp)
        let mismatch = try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", temporaryFile("out.jpg").path, "--format", "webp")
        #expect(mismatch.status == 64)
        #expect(mismatch.stderr.contains("--format"), "\(mismatch.stderr)")
        let unnamed = try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", temporaryFile("out").path)
        #expect(unnamed.status == 64)
        let fraction = try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", webp.path, "--quality", "0.8")
        #expect(fraction.status == 64)
        #expect(fraction.stderr.contains("0 to 100"), "\(fraction.stderr)")
        // `.heif` is the container HEIC is written in.
        let heif = temporaryFile("out.heif")
        defer { try? FileManager.default.removeItem(at: heif) }
        #expect(try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", heif.path, "--format", "heic").status == 0)
        #expect(try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", heif.path).status == 0)
        // The name `info` prints for JPEG XL is taken back.
        let jxl = temporaryFile("out.jxl")
        defer { try? FileManager.default.removeItem(at: jxl) }
        #expect(try WebImageCommand.run("encode", corpusPath("TestImage.png"), "-o", jxl.path, "--format", ImageFormat.jpegXL.rawValue).status == 0)
    }

    /// `--thumbnail 64x` bounds the width only, as vipsthumbnail's `--size 64x`.
    @Test func aThumbnailMayBoundOneSide() throws {
        let output = temporaryFile("side.png")
        defer { try? FileManager.default.removeItem(at: output) }
        // TestEXIF.png is 150×200.
        #expect(try WebImageCommand.run("decode", corpusPath("TestEXIF.png"), "-o", output.path, "--thumbnail", "75x").status == 0)
        #expect(try decodedFile(output).size == ImageSize(width: 75, height: 100))
        #expect(try WebImageCommand.run("decode", corpusPath("TestEXIF.png"), "-o", output.path, "--thumbnail", "x50").status == 0)
        #expect(try decodedFile(output).size == ImageSize(width: 38, height: 50))
        #expect(try WebImageCommand.run("decode", corpusPath("TestEXIF.png"), "-o", output.path, "--thumbnail", "75x", "--stretch").status == 64)
        #expect(try WebImageCommand.run("decode", corpusPath("TestEXIF.png"), "-o", output.path, "--thumbnail", "x").status == 64)
    }

    /// From the same review: `decode --frame` dropped what `--metadata` kept, and `--page`
    /// of anything but a PDF gave the first image without a word.
    @Test func decodeOfAFrameKeepsTheMetadataAndPageIsForPDFs() throws {
        let fixture = Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.jpg").path
        let output = temporaryFile("frame.png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try WebImageCommand.run("decode", fixture, "-o", output.path, "--frame", "0", "--metadata", "all")
        #expect(result.status == 0, "\(result.stderr)")
        let tags = try ExifTool.tags(of: Data(contentsOf: output), ext: "png")
        #expect(ExifTool.blockGroups(tags) == ["EXIF", "XMP", "ICC_Profile"])
        let page = try WebImageCommand.run("decode", fixture, "-o", output.path, "--page", "1")
        #expect(page.status != 0)
        #expect(page.stderr.contains("--page"), "\(page.stderr)")
    }
}
