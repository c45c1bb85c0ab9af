import ArgumentParser
import Foundation
import WebImage

/// `webimage info FILE [--json]`: what an image file holds.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print an image's format, size, frames, loop count, alpha and orientation."
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
    }

    func run() throws {
        try reportingFailures {
            // Lazily: the structure gives the frame count and durations, and only the
            // poster frame is decoded.
            let image = try AnimatedImage(data: input.read())
            let info = Info(
                format: image.format.rawValue,
                width: image.size.width,
                height: image.size.height,
                frameCount: image.frameCount,
                loopCount: image.loopCount,
                hasAlpha: image.properties.hasAlpha,
                orientation: image.properties.orientation.rawValue,
                durations: image.isAnimated ? image.durations : nil
            )
            try output.emit(info) {
                print("""
                format:      \(info.format)
                size:        \(info.width)x\(info.height)
                frames:      \(info.frameCount)
                loop count:  \(info.loopCount)\(info.loopCount == 0 ? " (forever)" : "")
                alpha:       \(info.hasAlpha ? "yes" : "no")
                orientation: \(info.orientation)
                """)
                if let durations = info.durations {
                    print("durations:   " + durations.map { String(format: "%.3f", $0) }.joined(separator: " "))
                }
            }
        }
    }
}
