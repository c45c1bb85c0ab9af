import ArgumentParser
import Foundation
import WebImage

/// `webimage frames FILE -o DIR`: every frame of an animation as `frame-000.png`, ...
struct FramesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Write every frame of an animated image as PNG files (frame-000.png, ...)."
    )

    @OptionGroup var input: ImageFileArgument

    @Option(name: .shortAndLong, help: "The directory to write into (created if missing).")
    var output: String

    @Option(help: "Decode each frame to fit inside WxH (never larger than the image).")
    var thumbnail: ImageSize?

    func validate() throws {
        // Elsewhere `-` is standard output; here it made a folder called "-".
        guard output != "-" else {
            throw ValidationError("frames writes one file per frame into a directory; -o - (standard output) cannot hold them")
        }
    }

    func run() throws {
        try reportingFailures {
            var options = ImageCoderOptions()
            options.thumbnailPixelSize = thumbnail
            let animation = try AnimatedImage(data: input.read(), options: options, coder: fileCoders)
            let directory = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let digits = max(3, String(animation.frameCount - 1).count)
            // One frame decoded and written at a time: memory stays at one frame.
            for index in 0..<animation.frameCount {
                let image = Image(pixels: try animation.frame(at: index), format: animation.format)
                let name = "frame-" + String(repeating: "0", count: max(0, digits - String(index).count)) + "\(index).png"
                try OutputFile(path: directory.appendingPathComponent(name).path).write(CodersManager.shared.encode(image, as: .png))
            }
            StandardStreams.output("\(animation.frameCount) frames written to \(output)\n")
        }
    }
}
