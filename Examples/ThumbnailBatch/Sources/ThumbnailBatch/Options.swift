import Foundation
import WebImage

/// The command line, parsed by hand: eight flags do not justify another dependency.
struct Options: Sendable {
    var sources: [String] = []
    var size = ImageSize(width: 256, height: 256)
    var format = ImageFormat.jpeg
    var quality = 0.8
    var jobs = 4
    var cacheDirectory: URL?
    var outputDirectory = URL(fileURLWithPath: "thumbnails", isDirectory: true)

    static let usage = """
        usage: ThumbnailBatch [options] SOURCE...
          SOURCE           an image URL (http, https, file, data) or a file path
          --from FILE      also read sources from FILE, one per line ('#' starts a comment)
          --size WxH       fit each thumbnail inside WxH pixels (default 256x256)
          --format NAME    jpeg, png, webp or gif (default jpeg)
          --quality Q      0 to 1, for jpeg and webp (default 0.8)
          --jobs N         images in flight at once (default 4)
          --cache-dir DIR  keep the disk cache under DIR (default $XDG_CACHE_HOME/swift-web-image)
          --output DIR     write the thumbnails here (default ./thumbnails)
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// `nil` for `--help`, so the caller decides how to exit.
    init?(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            guard let value = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help":
                return nil
            case "--from":
                let path = try value(for: argument)
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw UsageError(description: "cannot read \(path)")
                }
                sources += text.split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            case "--size":
                let text = try value(for: argument)
                let parts = text.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
                    throw UsageError(description: "--size wants WIDTHxHEIGHT, got \(text)")
                }
                size = ImageSize(width: parts[0], height: parts[1])
            case "--format":
                let name = try value(for: argument).lowercased()
                // Asking the coders rather than listing formats here keeps the flag honest
                // about what this build of the library can encode (AVIF depends on libavif).
                guard let format = ImageFormat(rawValue: name == "jpg" ? "jpeg" : name),
                      CodersManager.shared.canEncode(to: format) else {
                    throw UsageError(description: "cannot encode \(name)")
                }
                self.format = format
            case "--quality":
                guard let quality = Double(try value(for: argument)), (0...1).contains(quality) else {
                    throw UsageError(description: "--quality wants a number from 0 to 1")
                }
                self.quality = quality
            case "--jobs":
                guard let jobs = Int(try value(for: argument)), jobs > 0 else {
                    throw UsageError(description: "--jobs wants a positive number")
                }
                self.jobs = jobs
            case "--cache-dir":
                cacheDirectory = URL(fileURLWithPath: try value(for: argument), isDirectory: true)
            case "--output":
                outputDirectory = URL(fileURLWithPath: try value(for: argument), isDirectory: true)
            case _ where argument.hasPrefix("--"):
                throw UsageError(description: "unknown option \(argument)")
            default:
                sources.append(argument)
            }
        }
        if sources.isEmpty { throw UsageError(description: "give at least one source") }
    }
}
