import ArgumentParser
import WebImage

/// A format the commands can write: `encode --format`, and the extension of `fetch -o`.
///
/// Only the ``ImageFormat/argumentNames`` of the formats that ``CodersManager/shared`` can
/// encode, so the help lists exactly what `encode` takes and a format it cannot write (SVG,
/// PDF, TIFF) is a usage error naming the choices, not a failure after the decode.
///
/// ```swift
/// @Option(help: "Output format.") var format: EncodableFormat
/// try CodersManager.shared.encode(image, as: format.format)
/// ```
struct EncodableFormat: ExpressibleByArgument {
    /// The format named.
    let format: ImageFormat

    /// Parses a format name that ``CodersManager/shared`` can encode, in any case.
    init?(argument: String) {
        guard let format = ImageFormat(argument: argument), CodersManager.shared.canEncode(to: format) else { return nil }
        self.format = format
    }

    /// The names ``init(argument:)`` takes, for help and the usage error.
    static var allValueStrings: [String] {
        ImageFormat.argumentNames.filter { CodersManager.shared.canEncode(to: $0.format) }.map(\.name)
    }

    /// The same names, for shell completion.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
