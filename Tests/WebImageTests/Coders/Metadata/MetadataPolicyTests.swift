import Foundation
import Testing
@testable import WebImage

/// Every encoder against ``ImageCoderOptions/MetadataPolicy``, read back by exiftool (an
/// independent reader): the source is Fixtures/metadata/exif-xmp-icc.jpg, which has EXIF
/// (Orientation 6, GPS, Artist), XMP (dc:creator, xmp:Rating) and a Display P3 profile.
@Suite struct MetadataPolicyTests {
    typealias Policy = ImageCoderOptions.MetadataPolicy

    static let encodedFormats: [ImageFormat] = [.jpeg, .png, .webp, .avif, .heic]

    static func fixture(_ ext: String) throws -> Data {
        try Data(contentsOf: Corpus.fixtures.appendingPathComponent("metadata/exif-xmp-icc.\(ext)"))
    }

    /// The fixture decoded keeping everything: its P3 pixels and profile, EXIF and XMP.
    static func sourceKeepingEverything(applyOrientation: Bool = true) throws -> Image {
        var options = ImageCoderOptions()
        options.keepsColorProfile = true
        options.readsMetadata = true
        options.applyOrientation = applyOrientation
        return try CodersManager.shared.decode(fixture("jpg"), options: options)
    }

    static func fileExtension(_ format: ImageFormat) -> String {
        format == .jpeg ? "jpg" : format.rawValue
    }

    @Test(arguments: MetadataPolicyTests.encodedFormats, ImageCoderOptions.MetadataPolicy.allCases)
    func encoderWritesWhatThePolicyKeeps(format: ImageFormat, policy: Policy) throws {
        // HEIC is written only where libheif has an HEVC encoder (Debian's has x265).
        guard CodersManager.shared.canEncode(to: format) else {
            #expect(format == .heic, "no encoder for \(format)")
            return
        }
        let source = try Self.sourceKeepingEverything()
        #expect(source.metadata.exif != nil && source.metadata.xmp != nil && source.colorProfile != nil)
        var options = ImageCoderOptions()
        options.metadataPolicy = policy
        let encoded = try CodersManager.shared.encode(source, as: format, options: options)
        let tags = try ExifTool.tags(of: encoded, ext: Self.fileExtension(format))
        let groups = ExifTool.blockGroups(tags)

        switch policy {
        case .strip:
            #expect(groups.isEmpty, "\(format): \(groups)")
        case .colorProfileOnly:
            #expect(groups == ["ICC_Profile"], "\(format): \(groups)")
            #expect(tags["ICC_Profile:ProfileDescription"] as? String == "Display P3")
        case .all:
            #expect(groups == ["EXIF", "XMP", "ICC_Profile"], "\(format): \(groups)")
            #expect(tags["ICC_Profile:ProfileDescription"] as? String == "Display P3")
            // The decoder turned the pixels upright, so the kept EXIF must not turn them again.
            #expect(tags["EXIF:Orientation"] as? Int == 1, "\(format): \(tags["EXIF:Orientation"] ?? "none")")
            let latitude = try #require(tags["EXIF:GPSLatitude"] as? Double, "\(format) lost the GPS position")
            #expect(abs(latitude - 48.8584) < 0.0001)
            #expect(tags["EXIF:Artist"] as? String == "Metadata Fixture")
            #expect(tags["XMP:Creator"] as? String == "Metadata Fixture")
            #expect(tags["XMP:Rating"] as? Int == 4)
        }
    }

    /// JPEG XL apart: exiftool 12.57 reads its `Exif` and `xml ` boxes but not the ICC
    /// profile inside the codestream, so libjxl (our decoder) reads that back.
    @Test(arguments: ImageCoderOptions.MetadataPolicy.allCases)
    func jpegXLWritesWhatThePolicyKeeps(policy: Policy) throws {
        let source = try Self.sourceKeepingEverything()
        var options = ImageCoderOptions()
        options.metadataPolicy = policy
        let encoded = try CodersManager.shared.encode(source, as: .jpegXL, options: options)
        let tags = try ExifTool.tags(of: encoded, ext: "jxl")
        let groups = ExifTool.blockGroups(tags)
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let decoded = try CodersManager.shared.decode(encoded, options: keep)
        switch policy {
        case .strip:
            #expect(groups.isEmpty, "\(groups)")
            #expect(decoded.colorProfile == nil)
            // Converted to sRGB before encoding: the colours are the default decode's.
            let converted = try CodersManager.shared.decode(Self.fixture("jpg"))
            #expect(ColorFixtureTests.psnr(decoded.pixels, converted.pixels) >= 30)
            #expect(ColorFixtureTests.psnr(source.pixels, converted.pixels) < 30)
        case .colorProfileOnly:
            #expect(groups.isEmpty, "\(groups)")
            #expect(decoded.colorProfile == source.colorProfile)
        case .all:
            #expect(groups == ["EXIF", "XMP"], "\(groups)")
            #expect(decoded.colorProfile == source.colorProfile)
            #expect(tags["EXIF:Orientation"] as? Int == 1, "\(tags["EXIF:Orientation"] ?? "none")")
            let latitude = try #require(tags["EXIF:GPSLatitude"] as? Double, "JPEG XL lost the GPS position")
            #expect(abs(latitude - 48.8584) < 0.0001)
            #expect(tags["EXIF:Artist"] as? String == "Metadata Fixture")
            #expect(tags["XMP:Creator"] as? String == "Metadata Fixture")
            #expect(tags["XMP:Rating"] as? Int == 4)
        }
    }

    /// HP's 1998 sRGB IEC61966-2.1, the profile Photoshop embeds in a large share of the
    /// web's photos (the corpus's TestImage.heic has it), which libpng calls a "known
    /// incorrect sRGB profile" and by default refuses to write: every encoder keeps it and
    /// decodes it again byte for byte. (Found by scripts/pillow-agreement.py over Pillow's
    /// test images: a PNG kept-profile encode of any such photo failed.)
    @Test(arguments: MetadataPolicyTests.encodedFormats + [.jpegXL])
    func theCommonHPSRGBProfileIsKept(format: ImageFormat) throws {
        // As in encoderWritesWhatThePolicyKeeps: only HEIC may lack its encoder.
        guard CodersManager.shared.canEncode(to: format) else {
            #expect(format == .heic, "no encoder for \(format)")
            return
        }
        var keep = ImageCoderOptions()
        keep.keepsColorProfile = true
        let source = try CodersManager.shared.decode(Corpus.data("TestImage.heic"), options: keep)
        let profile = try #require(source.colorProfile)
        #expect(profile.data.count == 3144)
        var options = ImageCoderOptions()
        options.metadataPolicy = .colorProfileOnly
        let encoded = try CodersManager.shared.encode(source, as: format, options: options)
        let decoded = try CodersManager.shared.decode(encoded, options: keep)
        #expect(decoded.colorProfile?.data == profile.data, "\(format) lost the profile")
    }

    @Test(arguments: MetadataPolicyTests.encodedFormats + [.jpegXL])
    func encodedMetadataDecodesAgain(format: ImageFormat) throws {
        // As in encoderWritesWhatThePolicyKeeps: only HEIC may lack its encoder.
        guard CodersManager.shared.canEncode(to: format) else {
            #expect(format == .heic, "no encoder for \(format)")
            return
        }
        let source = try Self.sourceKeepingEverything()
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let encoded = try CodersManager.shared.encode(source, as: format, options: options)
        var decodeOptions = ImageCoderOptions()
        decodeOptions.readsMetadata = true
        decodeOptions.keepsColorProfile = true
        let decoded = try CodersManager.shared.decode(encoded, options: decodeOptions)
        #expect(decoded.metadata == source.metadata, "\(format)")
        #expect(decoded.colorProfile == source.colorProfile, "\(format)")
        #expect(decoded.orientation == .up, "\(format)")
        #expect(decoded.size == source.size, "\(format)")
    }

    @Test func orientationStaysWhenTheDecodeDidNotApplyIt() throws {
        let source = try Self.sourceKeepingEverything(applyOrientation: false)
        #expect(source.size == ImageSize(width: 96, height: 64))
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let jpeg = try CodersManager.shared.encode(source, as: .jpeg, options: options)
        #expect(try ExifTool.tags(of: jpeg, ext: "jpg")["EXIF:Orientation"] as? Int == 6)
    }

    @Test func strippingConvertsKeptPixelsToSRGB() throws {
        // PNG is lossless, so the stripped file's pixels must be exactly the default
        // decode's, which converts to sRGB through the same transform.
        let source = try Self.sourceKeepingEverything()
        var options = ImageCoderOptions()
        options.metadataPolicy = .strip
        let png = try CodersManager.shared.encode(source, as: .png, options: options)
        let converted = try CodersManager.shared.decode(Self.fixture("jpg"))
        #expect(source.pixels != converted.pixels)
        #expect(try CodersManager.shared.decode(png).pixels == converted.pixels)
    }

    @Test(arguments: [ImageFormat.gif, .bmp])
    func formatsWithoutMetadataWriteNoneAndConvertToSRGB(format: ImageFormat) throws {
        let source = try Self.sourceKeepingEverything()
        var options = ImageCoderOptions()
        options.metadataPolicy = .all
        let encoded = try CodersManager.shared.encode(source, as: format, options: options)
        #expect(ExifTool.blockGroups(try ExifTool.tags(of: encoded, ext: format.rawValue)).isEmpty)
        if format == .bmp {
            #expect(try CodersManager.shared.decode(encoded).pixels == CodersManager.shared.decode(Self.fixture("jpg")).pixels)
        }
    }

    @Test func thumbnailsAndTransformedImagesAreStrippedByDefault() throws {
        var decodeOptions = ImageCoderOptions()
        decodeOptions.keepsColorProfile = true
        decodeOptions.readsMetadata = true
        decodeOptions.thumbnailPixelSize = ImageSize(width: 32, height: 32)
        let thumbnail = try CodersManager.shared.decode(Self.fixture("jpg"), options: decodeOptions)
        #expect(thumbnail.isThumbnail && thumbnail.colorProfile != nil && thumbnail.metadata.exif != nil)
        let transformed = try FlipTransformer(horizontal: true).transform(Self.sourceKeepingEverything())
        for image in [thumbnail, transformed] {
            let jpeg = try CodersManager.shared.encode(image, as: .jpeg, options: ImageCoderOptions())
            #expect(ExifTool.blockGroups(try ExifTool.tags(of: jpeg, ext: "jpg")).isEmpty)
        }
        // A plain re-encode keeps the profile, and only it.
        let plain = try CodersManager.shared.encode(Self.sourceKeepingEverything(), as: .jpeg, options: ImageCoderOptions())
        #expect(ExifTool.blockGroups(try ExifTool.tags(of: plain, ext: "jpg")) == ["ICC_Profile"])
        // Asked for, a transformed image keeps its metadata.
        var all = ImageCoderOptions()
        all.metadataPolicy = .all
        let kept = try CodersManager.shared.encode(transformed, as: .jpeg, options: all)
        #expect(ExifTool.blockGroups(try ExifTool.tags(of: kept, ext: "jpg")) == ["EXIF", "XMP", "ICC_Profile"])
    }
}
