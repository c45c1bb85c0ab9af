import ArgumentParser
import Foundation
import WebImage

/// `--metadata strip|icc|all`, shared by `decode` and `encode`: what the written file keeps
/// of the source's colour profile, EXIF and XMP (``ImageCoderOptions/MetadataPolicy``).
///
/// Keeping something starts at the decode: `icc` keeps the source's pixels and profile
/// instead of converting them to sRGB, `all` also reads the EXIF and XMP blocks. Without
/// the option the pixels are converted to sRGB and nothing else is written.
///
/// `--cmyk-profile FILE|naive` is the other colour choice made at the decode: what CMYK
/// without a profile of its own converts through (``ImageCoderOptions/defaultCMYKProfile``).
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

    @Option(name: .customLong("cmyk-profile"), help: "What CMYK without a profile of its own converts through: an ICC profile file, or naive for the formula browsers and Pillow use (default: Coated FOGRA39).")
    var cmykProfile: String?

    /// Sets what the decode must keep for the chosen policy, and the CMYK profile; fails
    /// when the profile file cannot be read or is not an ICC profile.
    func applyToDecode(_ options: inout ImageCoderOptions) throws {
        if let cmykProfile, cmykProfile == "naive" {
            options.defaultCMYKProfile = nil
        } else if let cmykProfile {
            // Through the input files' reader: a FIFO or a device (`/dev/zero`) named here
            // hung the command or ran it out of memory. No profile is larger than 4 MiB.
            let bytes: Data
            do {
                bytes = try FileURLLoader.read(URL(fileURLWithPath: cmykProfile), limit: 4 << 20)
            } catch WebImageError.network(let reason, _) {
                throw ValidationError("--cmyk-profile: \(reason)")
            } catch WebImageError.responseTooLarge {
                throw ValidationError("--cmyk-profile \(cmykProfile) is larger than an ICC profile can be (4 MiB)")
            }
            let profile: ColorProfile
            do {
                profile = try ColorProfile(iccData: bytes)
            } catch {
                // Named, or the user suspects the image being decoded.
                throw ValidationError("--cmyk-profile \(cmykProfile) is not an ICC profile")
            }
            guard profile.colorSpace == .cmyk else { throw ValidationError("--cmyk-profile \(cmykProfile) is not a CMYK profile") }
            options.defaultCMYKProfile = profile
        }
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
