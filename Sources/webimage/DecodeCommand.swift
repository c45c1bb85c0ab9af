import ArgumentParser
import Foundation
import WebImage

/// `webimage decode FILE -o OUT.png`: decoded pixels, optionally as a thumbnail, as PNG.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image (optionally to a thumbnail) and write its pixels as PNG."
    )

    @OptionGroup var files: ConversionFiles

    @Option(help: "Decode to fit inside WxH (never larger than a bitmap; SVG and PDF are drawn at that size).")
    var thumbnail: ImageSize?

    @Flag(help: "With --thumbnail, fit each side separately instead of keeping the aspect ratio.")
    var stretch = false

    @Option(name: .customLong("scale-down-limit"), help: "Scale down so the decoded RGBA needs at most BYTES.")
    var scaleDownLimit: Int?

    @Flag(name: .customLong("no-orientation"), help: "Keep pixels as stored; do not apply the EXIF orientation.")
    var noOrientation = false

    // `.unconditional`: `--frame -1` is then a value the check below refuses by name;
    // otherwise the parser takes `-1` for a flag and says "Missing value".
    @Option(parsing: .unconditional, help: "Write frame N (0-based) of an animated image instead of the first.")
    var frame: Int?

    @OptionGroup var metadata: MetadataOption
    @Option(parsing: .unconditional, help: "Render page N (0-based) of a PDF instead of the first.")
    var page: Int?

    func validate() throws {
        // The bytes are PNG whatever the name says: `-o x.jpg` made a PNG called x.jpg.
        // The name's extension (none for a hidden file's leading dot).
        let name = files.output.split(separator: "/").last ?? ""
        let suffix = name.lastIndex(of: ".").map { dot in dot > name.startIndex ? name[name.index(after: dot)...].lowercased() : "" } ?? ""
        if suffix != "png", ImageFormat(argument: suffix) != nil {
            throw ValidationError("decode writes PNG, not \(suffix): name the output .png, or use encode --format for another format")
        }
        // 0 or less used to mean no limit, quietly (`encode --max-file-size 0` is refused).
        if let scaleDownLimit, scaleDownLimit <= 0 { throw ValidationError("--scale-down-limit must be a positive number of bytes") }
        if let frame, frame < 0 { throw ValidationError("--frame must be 0 or more") }
        if let page, page < 0 { throw ValidationError("--page must be 0 or more") }
    }

    func run() throws {
        try reportingFailures {
            var options = ImageCoderOptions()
            options.thumbnailPixelSize = thumbnail
            options.preserveAspectRatio = !stretch
            options.scaleDownLimitBytes = scaleDownLimit
            options.applyOrientation = !noOrientation
            try metadata.applyToDecode(&options)
            options.pageIndex = page ?? 0
            let image: Image
            if let frame {
                let animation = try AnimatedImage(data: files.read(), options: options, coder: fileCoders)
                guard frame < animation.frameCount else {
                    throw ValidationError("--frame \(frame) is past the last frame (\(animation.frameCount) frames)")
                }
                image = Image(pixels: try animation.frame(at: frame), format: animation.format)
            } else {
                options.decodeFirstFrameOnly = true
                image = try fileCoders.decode(files.read(), options: options)
            }
            var encodeOptions = ImageCoderOptions()
            encodeOptions.encodeFirstFrameOnly = true
            metadata.applyToEncode(&encodeOptions)
            try files.write(CodersManager.shared.encode(image, as: .png, options: encodeOptions))
        }
    }
}
