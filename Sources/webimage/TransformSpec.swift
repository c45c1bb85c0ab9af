import ArgumentParser
import WebImage

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
