import ArgumentParser
import Foundation

/// The image to read and the one file to write, for the commands that turn one image file
/// into another (`decode`, `encode`): declared once so both spell and handle them alike.
struct ConversionFiles: ParsableArguments {
    @OptionGroup var input: ImageFileArgument

    @Option(name: .shortAndLong, help: "The file to write; `-` writes to standard output.")
    var output: String

    /// The input file's bytes.
    func read() throws -> Data {
        try input.read()
    }

    /// The output name's extension, lowercased; `nil` for none (a hidden file's leading
    /// dot is no extension) and for standard output.
    var outputExtension: String? {
        guard output != "-", let name = output.split(separator: "/").last, let dot = name.lastIndex(of: "."),
              dot > name.startIndex else { return nil }
        let suffix = name[name.index(after: dot)...].lowercased()
        return suffix.isEmpty ? nil : suffix
    }

    /// Writes `data` to the output file (see ``OutputFile``).
    func write(_ data: Data) throws {
        try OutputFile(path: output).write(data)
    }
}
