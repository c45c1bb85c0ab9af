import Foundation
import Testing
@testable import WebImage

/// Untrusted bytes: truncation, random damage, lying headers, hostile progressions.
/// Every case must end in a ``WebImageError`` or a whole image of the declared size —
/// never a crash, a hang, or a grey image made from nothing.
@Suite struct JPEGCoderCorruptInputTests {
    let coder = JPEGCoder()

    enum Outcome { case image(Image), failure(WebImageError) }

    func outcome(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) -> Outcome? {
        do { return .image(try coder.decode(data, options: options)) }
        catch let error as WebImageError { return .failure(error) }
        catch { return nil }
    }

    /// Offset just past the SOS segment header (where entropy-coded data begins).
    static func entropyStart(_ data: Data) -> Int? {
        let bytes = [UInt8](data)
        guard let sos = (2..<bytes.count - 3).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }) else { return nil }
        return sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
    }

    @Test func nonJPEGIsBadImageData() throws {
        guard case .failure(.badImageData)? = outcome(try Corpus.data("TestImage.png")) else {
            Issue.record("PNG bytes should be badImageData")
            return
        }
        guard case .failure(.badImageData)? = outcome(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10])) else {
            Issue.record("a bare SOI and APP0 start should be badImageData")
            return
        }
    }

    @Test(arguments: ["TestImage.jpg", "TestICCProfile.jpg", "MonochromeTestImage.jpg"])
    func truncationGivesErrorOrPartialImageOfFullSize(name: String) throws {
        let data = try Corpus.data(name)
        let full = try coder.decode(data, options: ImageCoderOptions())
        var partials = 0, failures = 0
        for step in 1..<40 {
            let cut = data.count * step / 40
            switch outcome(data.prefix(cut)) {
            case .image(let image)?:
                #expect(image.size == full.size, "cut at \(cut)")
                partials += 1
            case .failure(let error)?:
                guard case .badImageData = error else {
                    Issue.record("cut at \(cut): unexpected \(error)")
                    continue
                }
                failures += 1
            case nil:
                Issue.record("cut at \(cut): error that is not a WebImageError")
            }
        }
        #expect(partials > 0)
        #expect(failures > 0 || name == "TestImage.jpg")
        // A cut inside the headers is always a failure.
        guard case .failure(.badImageData)? = outcome(data.prefix(20)) else {
            Issue.record("20 bytes should be badImageData")
            return
        }
    }

    @Test func truncatedBaselineKeepsDecodedRowsAndFillsTheRestGrey() throws {
        let data = try Corpus.data("TestICCProfile.jpg")
        // libjpeg's grey fill as stored: the file's test profile, applied, would recolour it.
        var options = ImageCoderOptions()
        options.keepsColorProfile = true
        let full = try coder.decodeFrame(data, options: options)
        #expect(!full.isPartial)
        let cut = try coder.decodeFrame(data.prefix(data.count * 6 / 10), options: options)
        #expect(cut.isPartial)
        #expect(cut.pixels.size == full.pixels.size)
        let topRows = 16 * cut.pixels.bytesPerRow
        #expect(cut.pixels.bytes[..<topRows] == full.pixels.bytes[..<topRows])
        let bottom = cut.pixels[pixel: 200, 299]
        #expect(abs(Int(bottom.red) - 128) <= 2 && abs(Int(bottom.green) - 128) <= 2 && abs(Int(bottom.blue) - 128) <= 2, "\(bottom)")
    }

    @Test(arguments: ["TestImage.jpg", "TestImageLarge.jpg"])
    func dataEndingBeforeTheFirstRowIsBadImageData(name: String) throws {
        let data = try Corpus.data(name)
        let start = try #require(Self.entropyStart(data))
        for extra in [0, 1, 4] {
            guard case .failure(.badImageData)? = outcome(data.prefix(start + extra)) else {
                Issue.record("\(name) cut \(extra) bytes into the scan should be badImageData")
                continue
            }
        }
    }

    @Test func seededByteFlipsNeverCrash() throws {
        var random = SplitMix64(seed: 0x5EED_1234)
        for name in ["TestImage.jpg", "MonochromeTestImage.jpg", "TestICCProfile.jpg"] {
            let original = try Corpus.data(name)
            var images = 0, failures = 0
            for _ in 0..<120 {
                var bytes = [UInt8](original)
                for _ in 0...(random.next() % 3) {
                    let at = 2 + Int(random.next() % UInt64(bytes.count - 2))
                    bytes[at] ^= UInt8(1 + random.next() % 255)
                }
                switch outcome(Data(bytes)) {
                case .image(let image)?:
                    #expect(image.pixels.bytes.count == image.size.width * image.size.height * 4)
                    images += 1
                case .failure?:
                    failures += 1
                case nil:
                    Issue.record("\(name): error that is not a WebImageError")
                }
            }
            #expect(images + failures == 120)
        }
    }

    @Test func headerClaiming60000SquareIsRefusedQuickly() throws {
        var bytes = [UInt8](try Corpus.data("TestImage.jpg"))
        let sof = try #require((2..<bytes.count - 9).first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        bytes.replaceSubrange(sof + 5..<sof + 9, with: [0xEA, 0x60, 0xEA, 0x60])   // height, width = 60000
        let started = ContinuousClock.now
        #expect(throws: WebImageError.imageTooLarge(width: 60000, height: 60000, limit: ImageCoderOptions().pixelLimit)) {
            try coder.decode(Data(bytes), options: ImageCoderOptions())
        }
        #expect(ContinuousClock.now - started < TestTime.prompt)
    }

    @Test func pixelLimitIsCheckedAgainstTheHeader() throws {
        var options = ImageCoderOptions()
        options.pixelLimit = 4799
        #expect(throws: WebImageError.imageTooLarge(width: 80, height: 60, limit: 4799)) {
            try coder.decode(try Corpus.data("TestImage.jpg"), options: options)
        }
    }

    /// CJPEG_MAX_SAVED_MARKERS, which the tests cannot import.
    static let savedMarkerLimit = 1000

    /// `data` with `count` empty APP1 markers (`FF E1 00 02`) inserted at `offset`.
    static func withEmptyAPP1Markers(_ data: Data, count: Int, at offset: Int) -> Data {
        var bytes = [UInt8](data)
        bytes.insert(contentsOf: Array(repeating: [0xFF, 0xE1, 0x00, 0x02] as [UInt8], count: count).joined(), at: offset)
        return Data(bytes)
    }

    @Test func headerOfManyMetadataMarkersIsRefusedQuickly() throws {
        // libjpeg appends each saved marker by walking its list, so 160,000 of them (640 KB)
        // took 30 seconds before the count was bounded.
        let hostile = Self.withEmptyAPP1Markers(try Corpus.data("TestImage.jpg"), count: 160_000, at: 2)
        let started = ContinuousClock.now
        let error = #expect(throws: WebImageError.self) { try coder.decode(hostile, options: ImageCoderOptions()) }
        guard case .badImageData(let reason)? = error else {
            Issue.record("expected badImageData, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("more than \(Self.savedMarkerLimit) APP1/APP2 markers"))
        #expect(ContinuousClock.now - started < TestTime.prompt)
    }

    /// A review's finding: the count stopped at a marker whose length is under 2, but
    /// libjpeg reads such an APPn, COM or DNL marker as empty and goes on, so one of them
    /// hid every APP1 after it (160,000 took 40 s again). Each is counted past now.
    @Test(arguments: [[0xFF, 0xE1, 0x00, 0x00], [0xFF, 0xE5, 0x00, 0x01], [0xFF, 0xFE, 0x00, 0x00]] as [[UInt8]])
    func aShortLengthMarkerHidesNoMarkerAfterIt(_ prefix: [UInt8]) throws {
        var bytes = [UInt8](Self.withEmptyAPP1Markers(try Corpus.data("TestImage.jpg"), count: 160_000, at: 2))
        bytes.insert(contentsOf: prefix, at: 2)
        let started = ContinuousClock.now
        let error = #expect(throws: WebImageError.self) { try coder.decode(Data(bytes), options: ImageCoderOptions()) }
        guard case .badImageData(let reason)? = error else {
            Issue.record("expected badImageData, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("more than \(Self.savedMarkerLimit) APP1/APP2 markers"))
        #expect(ContinuousClock.now - started < TestTime.prompt)
    }

    @Test func metadataMarkersUpToTheLimitStillDecode() throws {
        // TestICCProfile.jpg already holds its profile in APP2 and an EXIF APP1; the count
        // covers both markers, so this lands exactly on the limit.
        let data = try Corpus.data("TestICCProfile.jpg")
        var options = ImageCoderOptions()
        options.keepsColorProfile = true
        options.readsMetadata = true
        let original = try coder.decode(data, options: options)
        let bytes = [UInt8](data)
        let existing = (2..<bytes.count - 1).count { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xE1 || bytes[$0 + 1] == 0xE2) }
        let padded = Self.withEmptyAPP1Markers(data, count: Self.savedMarkerLimit - existing, at: 2)
        let image = try coder.decode(padded, options: options)
        #expect(image.pixels == original.pixels)
        #expect(original.colorProfile != nil)
        #expect(image.colorProfile == original.colorProfile)
        #expect(image.metadata == original.metadata)
        let over = Self.withEmptyAPP1Markers(padded, count: 1, at: 2)
        #expect(throws: WebImageError.self) { try coder.decode(over, options: ImageCoderOptions()) }
    }

    @Test func metadataMarkersBetweenScansAreSkippedNotSaved() throws {
        // The count stops at the first scan; markers after it must not reach libjpeg's
        // list either, or the quadratic append comes back through a progressive file.
        let data = try Corpus.data("MonochromeTestImage.jpg")
        let bytes = [UInt8](data)
        let lastScan = try #require((2..<bytes.count - 1).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let hostile = Self.withEmptyAPP1Markers(data, count: 160_000, at: lastScan)
        let started = ContinuousClock.now
        let image = try coder.decode(hostile, options: ImageCoderOptions())
        #expect(image.pixels == (try coder.decode(data, options: ImageCoderOptions())).pixels)
        #expect(ContinuousClock.now - started < TestTime.prompt)
    }

    @Test func progressionWithTooManyScansIsAbandoned() throws {
        // Repeat the last scan of a progressive file 600 times: libjpeg only warns about
        // the bogus progression, so without a scan limit it would redo them all.
        let data = try Corpus.data("MonochromeTestImage.jpg")
        let bytes = [UInt8](data)
        let lastScan = try #require((2..<bytes.count - 1).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = bytes[lastScan..<bytes.count - 2]
        var hostile = Array(bytes[..<lastScan])
        for _ in 0..<600 { hostile += scan }
        hostile += [0xFF, 0xD9]
        let error = #expect(throws: WebImageError.self) {
            try coder.decode(Data(hostile), options: ImageCoderOptions())
        }
        guard case .badImageData(let reason)? = error else {
            Issue.record("expected badImageData, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("scans"))
        // The same scan repeated a few times is within the limit and still decodes.
        var tolerable = Array(bytes[..<lastScan])
        for _ in 0..<5 { tolerable += scan }
        tolerable += [0xFF, 0xD9]
        #expect(try coder.decode(Data(tolerable), options: ImageCoderOptions()).size == ImageSize(width: 165, height: 121))
    }
}
