import ArgumentParser
import WebImage

/// `--metadata strip|icc|all`, shared by `decode` and `encode`: what the written file keeps
/// of the source's colour profile, EXIF and XMP (``ImageCoderOptions/MetadataPolicy``).
///
/// Keeping something starts at the decode: `icc` keeps the source's pixels and profile
/// instead of converting them to sRGB, `all` also reads the EXIF and XMP blocks. Without
/// the option the pixels are converted to sRGB and nothing else is written.
struct MetadataOption: ParsableArguments {
    /// The choices, named as a user types them.
    enum Choice: String, ExpressibleByArgument, CaseIterable {
        case strip, icc, all

        var policy: ImageCoderOptions.MetadataPolicy {
            switch self {
            case .strip: .strip
            case .icc: .colorProfileOnly
            case .all: .all
            }
        }
    }

    @Option(help: "What the output keeps of the source's metadata: strip (nothing; colours converted to sRGB), icc (the colour profile) or all (profile, EXIF and XMP).")
    var metadata: Choice?

    /// Sets what the decode must keep for the chosen policy.
    func applyToDecode(_ options: inout ImageCoderOptions) {
        guard let metadata else { return }
        options.keepsColorProfile = metadata != .strip
        options.readsMetadata = metadata == .all
    }

    /// Sets the encoder's policy, when one was chosen.
    func applyToEncode(_ options: inout ImageCoderOptions) {
        guard let metadata else { return }
        options.metadataPolicy = metadata.policy
    }
}
