import ArgumentParser
import Foundation
import WebImage

/// `webimage info FILE [--json]`: what an image file holds.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print an image's format, size, frames, loop count, alpha, orientation, colour profile and metadata."
    )

    @OptionGroup var input: ImageFileArgument

    @OptionGroup var output: JSONOutputFlag

    /// The JSON contract other tools rely on; keys are stable.
    struct Info: Encodable {
        let format: String
        let width: Int
        let height: Int
        let frameCount: Int
        let loopCount: Int
        let hasAlpha: Bool
        let orientation: Int
        /// Every frame's duration in seconds; present only for animated files.
        let durations: [Double]?
        /// The embedded RGB colour profile; absent when there is none (the pixels are
        /// sRGB). Grey and CMYK profiles, which decoding always converts, are not reported.
        let colorProfile: ColorProfileInfo?
        /// The size in bytes of each metadata block the file holds; a block it lacks has no
        /// key, so a file without metadata gives `{}`.
        let metadata: MetadataInfo
    }

    /// What `colorProfile` says.
    struct ColorProfileInfo: Encodable {
        /// The profile's description tag ("Display P3"), read by Little CMS; absent when
        /// the profile has none.
        let description: String?
        /// `rgb` (the only kind reported for now).
        let colorSpace: String
        /// The profile's size in bytes.
        let bytes: Int
    }

    /// What `metadata` says: byte counts of the EXIF block (TIFF-structured, without JPEG's
    /// `Exif\0\0`), the XMP packet and the ICC profile.
    struct MetadataInfo: Encodable {
        let exif: Int?
        let xmp: Int?
        let icc: Int?
    }

    /// The colour profile and metadata blocks, from a decode of the first frame that keeps
    /// them (at a thumbnail's size, so that formats which can decode small do so).
    static func describeMetadata(of data: Data) throws -> (ColorProfileInfo?, MetadataInfo) {
        var options = ImageCoderOptions()
        options.decodeFirstFrameOnly = true
        options.keepsColorProfile = true
        options.readsMetadata = true
        options.thumbnailPixelSize = ImageSize(width: 16, height: 16)
        let image = try fileCoders.decode(data, options: options)
        let profile = image.colorProfile.map {
            ColorProfileInfo(description: $0.name, colorSpace: "rgb", bytes: $0.data.count)
        }
        let metadata = MetadataInfo(
            exif: image.metadata.exif?.count, xmp: image.metadata.xmp?.count, icc: image.colorProfile?.data.count)
        return (profile, metadata)
    }

    func run() throws {
        try reportingFailures {
            // Lazily: the structure gives the frame count and durations, and only the
            // poster frame is decoded.
            let data = try input.read()
            let image = try AnimatedImage(data: data, coder: fileCoders)
            let (profile, metadata) = try Self.describeMetadata(of: data)
            let info = Info(
                format: image.format.rawValue,
                width: image.size.width,
                height: image.size.height,
                frameCount: image.frameCount,
                loopCount: image.loopCount,
                hasAlpha: image.properties.hasAlpha,
                orientation: image.properties.orientation.rawValue,
                durations: image.isAnimated ? image.durations : nil,
                colorProfile: profile,
                metadata: metadata
            )
            try output.emit(info) {
                var lines = [
                    "format:      \(info.format)",
                    "size:        \(info.width)x\(info.height)",
                    "frames:      \(info.frameCount)",
                    "loop count:  \(info.loopCount)\(info.loopCount == 0 ? " (forever)" : "")",
                    "alpha:       \(info.hasAlpha ? "yes" : "no")",
                    "orientation: \(info.orientation)",
                ]
                if let durations = info.durations {
                    lines.append("durations:   " + durations.map { String(format: "%.3f", $0) }.joined(separator: " "))
                }
                lines.append("colour:      " + (info.colorProfile.map { "\($0.description ?? "unnamed") profile" } ?? "sRGB"))
                let blocks = [("exif", info.metadata.exif), ("xmp", info.metadata.xmp), ("icc", info.metadata.icc)]
                    .compactMap { name, bytes in bytes.map { "\(name) \($0) bytes" } }
                lines.append("metadata:    " + (blocks.isEmpty ? "none" : blocks.joined(separator: ", ")))
                return lines
            }
        }
    }
}
