import ArgumentParser
import Foundation
import WebImage

/// Runs `body`, turning any failure into one line on standard error and exit status 1,
/// so bad input never shows a crash trace.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch {
        StandardStreams.error("webimage: error: \(describe(error))\n")
        throw ExitCode.failure
    }
}

/// `error` as one line for the user: the library's errors and ours by their description,
/// Foundation's file errors by the path and reason (never `Error Domain=...` text).
func describe(_ error: any Error) -> String {
    if let error = error as? WebImageError { return error.description }
    if let error = error as? CocoaError, let path = error.userInfo[NSFilePathErrorKey] as? String {
        return "cannot access \(path): \(error.code == .fileReadNoSuchFile ? "no such file" : error.localizedDescription)"
    }
    return String(describing: error).replacingOccurrences(of: "\n", with: " ")
}

/// `--timeout` seconds as the downloader's timeout. Seconds past a Duration's reach in
/// milliseconds (`1e300`, `inf`) are capped at about 31,700 years: "no practical limit",
/// never a crash; a positive time under a millisecond is one millisecond (rounded down to
/// none, every download would time out at once). `seconds` must be positive (the commands
/// validate it).
func downloaderTimeout(seconds: Double) -> Duration {
    .milliseconds(max(1, Int64(min(seconds, 1e12) * 1000)))
}

/// The coders of the commands that read a file the user names (`decode`, `encode`,
/// `info`, `frames`): the library's, and PDF, which the library leaves out because poppler
/// decodes a page's images at their full size with no limit (``PDFCoder``). A file named on
/// the command line is the user's choice; what `fetch` and `prefetch` load is not, and they
/// keep the library's coders.
let fileCoders = CodersManager(coders: CodersManager.builtInCodersWithDocuments)

/// The largest input file a single-image command (`decode`, `encode`, `frames`, `info`)
/// reads: 1 GiB, far above any image the decoders' pixel limits would let through.
let maximumInputFileSize = 1 << 30

/// Reads a whole input file, as the library's `file:` loader does: a regular file of at
/// most ``maximumInputFileSize`` bytes. A FIFO would block the command forever and a
/// device (`/dev/zero`) never ends, so both are refused before a byte is read.
func readInput(_ path: String) throws -> Data {
    if path == "-" { return try StandardStreams.input(limit: maximumInputFileSize) }
    do {
        return try FileURLLoader.read(URL(fileURLWithPath: path), limit: maximumInputFileSize)
    } catch WebImageError.network(let reason, _) {
        // The loader words it for a load ("network error: cannot open ..."); here it is a
        // file the user named.
        throw InputFileError(reason: reason)
    } catch WebImageError.responseTooLarge(let limit) {
        throw InputFileError(reason: "\(path) is larger than the limit of \(limit) bytes")
    }
}

/// An input file that cannot be read, described as the user should read it.
struct InputFileError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// Checks a `--quality` value (0 to 100): `encode`'s, and `fetch`'s and `prefetch`'s for
/// what they encode. A value between 0 and 1 is refused with a hint: the library's own
/// scale is 0-1, and 0.8 meant as 80 % wrote images at 0.8 %.
func validateQuality(_ quality: Double) throws {
    guard (0...100).contains(quality) else { throw ValidationError("--quality must be between 0 and 100") }
    if quality > 0, quality < 1 {
        throw ValidationError("--quality is from 0 to 100 (\(quality) would be under 1 %); did you mean \(Int(quality * 100))?")
    }
}

extension ImageSize: ExpressibleByArgument {
    /// Parses `WxH`, a single `N` for a square, or `Wx` / `xH` for a bound on one side
    /// only (as vipsthumbnail's `--size` takes them): the other side is then
    /// ``unboundedSide``.
    public init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        if parts.count == 1 {
            guard let side = Int(parts[0]), side > 0 else { return nil }
            self.init(width: side, height: side)
            return
        }
        let width = parts[0].isEmpty ? Self.unboundedSide : Int(parts[0])
        let height = parts[1].isEmpty ? Self.unboundedSide : Int(parts[1])
        guard let width, let height, width > 0, height > 0, !(parts[0].isEmpty && parts[1].isEmpty) else { return nil }
        self.init(width: width, height: height)
    }

    /// The side `Wx` and `xH` leave open: larger than any image the decoders accept.
    static let unboundedSide = Int(Int32.max)

    /// Whether one side was left open (`Wx`, `xH`).
    var hasUnboundedSide: Bool { width == Self.unboundedSide || height == Self.unboundedSide }

    /// The grammar, for help texts.
    static let argumentHelp = "WxH, N for NxN, or Wx / xH to bound one side"
}

extension ImageFormat: ExpressibleByArgument {
    /// Every name a format argument takes, in the order help lists them: the formats' own
    /// names, `jpg` and `tif` as file extensions spell them, and `jxl` for JPEG XL. The
    /// case names are not all names a user types (`jpegXL`; `undefined` is no format), and
    /// help listing them offered values the parser refused.
    static let argumentNames: [(name: String, format: ImageFormat)] = [
        ("jpeg", .jpeg), ("jpg", .jpeg), ("png", .png), ("gif", .gif), ("webp", .webp), ("avif", .avif),
        ("heic", .heic), ("heif", .heif), ("jxl", .jpegXL), ("bmp", .bmp), ("tiff", .tiff), ("tif", .tiff),
        ("svg", .svg), ("pdf", .pdf),
    ]

    /// Parses a format name of ``argumentNames``, in any case; also `jpegxl`, the name
    /// `info` and `fetch` print for JPEG XL (``ImageFormat/jpegXL``'s raw value), so that
    /// what one command prints another takes. Not listed, as help offers `jxl`.
    public init?(argument: String) {
        let name = argument.lowercased()
        if name == ImageFormat.jpegXL.rawValue.lowercased() {
            self = .jpegXL
            return
        }
        guard let format = Self.argumentNames.first(where: { $0.name == name })?.format else { return nil }
        self = format
    }

    /// The names ``init(argument:)`` takes, for help and the usage error.
    public static var allValueStrings: [String] { argumentNames.map(\.name) }

    /// The same names, for shell completion.
    public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

// `--transform SPEC` for the commands that take one (the grammar is documented on
// `TransformSpec` in the library, which does the parsing). Use the throwing form, so a
// bad spec is reported with the reason:
//
//     @Option(name: .long, help: "Transformers to apply", transform: TransformSpec.argument)
//     var transform: TransformSpec?

extension TransformSpec: ExpressibleByArgument {
    /// Parses a `--transform` value; nil (a generic usage error) when it does not parse.
    public init?(argument: String) {
        guard let spec = try? TransformSpec(argument) else { return nil }
        self = spec
    }

    /// Parses a `--transform` value, reporting what is wrong as a usage error.
    static func argument(_ text: String) throws -> TransformSpec {
        do {
            return try TransformSpec(text)
        } catch let error as TransformSpec.ParseError {
            throw ValidationError(error.description)
        }
    }
}
