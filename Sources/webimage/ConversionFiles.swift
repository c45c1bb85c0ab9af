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

    /// Writes `data` to the output file (see ``OutputFile``).
    func write(_ data: Data) throws {
        try OutputFile(path: output).write(data)
    }
}
