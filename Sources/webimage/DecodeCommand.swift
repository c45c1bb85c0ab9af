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

    @Option(help: "Decode to fit inside WxH (\(ImageSize.argumentHelp); never larger than a bitmap; SVG and PDF are drawn at that size).")
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
        if let suffix = files.outputExtension, suffix != "png", ImageFormat(argument: suffix) != nil {
            throw ValidationError("decode writes PNG, not \(suffix): name the output .png, or use encode --format for another format")
        }
        // 0 or less used to mean no limit, quietly (`encode --max-file-size 0` is refused).
        if let scaleDownLimit, scaleDownLimit <= 0 { throw ValidationError("--scale-down-limit must be a positive number of bytes") }
        if let frame, frame < 0 { throw ValidationError("--frame must be 0 or more") }
        if let page, page < 0 { throw ValidationError("--page must be 0 or more") }
        if stretch, thumbnail?.hasUnboundedSide == true {
            throw ValidationError("--stretch needs both sides of --thumbnail (WxH)")
        }
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
            let data = try files.read()
            // Only PDF has pages (``ImageCoderOptions/pageIndex``): another format gave its
            // first image for any page, and said nothing.
            if let page, page > 0, ImageFormat(sniffing: data) != .pdf {
                throw ValidationError("--page is for PDF documents; this input is \(ImageFormat(sniffing: data).rawValue) (use --frame for an animation's frames)")
            }
            let image: Image
            if let frame {
                let animation = try AnimatedImage(data: data, options: options, coder: fileCoders)
                guard frame < animation.frameCount else {
                    throw ValidationError("--frame \(frame) is past the last frame (\(animation.frameCount) frames)")
                }
                // The metadata the decode kept, as without --frame: read with the first frame
                // (a decode of one frame reads the file's blocks as a whole). A still is that
                // decode itself, its profile kept with its pixels; an animation's frames are
                // always in sRGB (a lazy source converts them), so no profile goes with them.
                var first = options
                first.decodeFirstFrameOnly = true
                let described = try fileCoders.decode(data, options: first)
                if animation.frameCount == 1 {
                    image = described
                } else {
                    image = Image(
                        frames: [ImageFrame(pixels: try animation.frame(at: frame))], format: animation.format,
                        hasAlpha: animation.properties.hasAlpha, metadata: described.metadata)
                }
            } else {
                options.decodeFirstFrameOnly = true
                image = try fileCoders.decode(data, options: options)
            }
            var encodeOptions = ImageCoderOptions()
            encodeOptions.encodeFirstFrameOnly = true
            metadata.applyToEncode(&encodeOptions)
            try files.write(CodersManager.shared.encode(image, as: .png, options: encodeOptions))
        }
    }
}
