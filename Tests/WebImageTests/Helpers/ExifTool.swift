import Foundation
import Testing

/// exiftool, the independent reader the metadata tests check written files with: it is
/// not built on any library our coders use. Installed by `make deps`
/// (scripts/install-deps.sh, Debian's libimage-exiftool-perl); a test that needs it fails
/// with that advice when it is missing, rather than passing without checking anything.
enum ExifTool {
    /// Where the binary is, from `PATH` (then Debian's place).
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/exiftool" } + ["/usr/bin/exiftool"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map(URL.init(fileURLWithPath:))
    }()

    /// What exiftool should have been: the message a test fails with.
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "exiftool is not installed: run `make deps` (scripts/install-deps.sh installs libimage-exiftool-perl)"
        }
    }

    /// The tags exiftool finds in `data`, written to a real file with extension `ext` in
    /// a temporary folder: `exiftool -j -G -n`, so keys are `GROUP:Tag` ("EXIF:Orientation",
    /// "XMP:Creator", "ICC_Profile:ProfileDescription") and values are numbers where the
    /// tag is numeric (Orientation 1, GPSLatitude 48.8584).
    static func tags(of data: Data, ext: String) throws -> [String: Any] {
        guard let executable else { throw Missing() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-exiftool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("image.\(ext)")
        try data.write(to: file)

        let process = Process()
        process.executableURL = executable
        process.arguments = ["-j", "-G", "-n", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let parsed = try JSONSerialization.jsonObject(with: json) as? [[String: Any]]
        return try #require(parsed?.first, "exiftool gave no JSON for the \(ext) file (status \(process.terminationStatus))")
    }

    /// The groups of `tags` that hold metadata blocks: "EXIF", "XMP", "ICC_Profile".
    static func blockGroups(_ tags: [String: Any]) -> Set<String> {
        Set(tags.keys.compactMap { key in
            let group = key.split(separator: ":").first.map(String.init) ?? ""
            return ["EXIF", "XMP", "ICC_Profile"].contains(group) ? group : nil
        })
    }
}
