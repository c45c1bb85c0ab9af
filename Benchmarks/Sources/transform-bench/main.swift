// Transformer speed: each built-in transformer on one decoded photo, ours against the same
// operation in Pillow, median of timed runs, one line each (ours, Pillow, ratio).
//
//   transform-bench [FILE] [--size WxH] [--seconds S]
//
// FILE defaults to the corpus' TestImageLarge.jpg ($WEBIMAGE_CORPUS, else Corpus/sdwebimage);
// it is decoded and, with --size, resized first so both sides start from the same pixels,
// which are handed to Pillow as raw RGBA. The blur lines at growing radii show the cost
// does not grow with the radius. Build with -c release.
import Foundation
import WebImage

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Median milliseconds of `body` over at least five runs and `budget` seconds.
func median(_ budget: Double, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var timings: [Double] = []
    let deadline = now() + budget
    while timings.count < 5 || now() < deadline {
        let start = now()
        try body()
        timings.append((now() - start) * 1000)
    }
    return timings.sorted()[timings.count / 2]
}

/// Times the same operations in Pillow; returns their medians in ms, keyed by name.
func pillowTimings(_ raw: URL, size: ImageSize, budget: Double, cases: [(String, String)]) -> [String: Double] {
    let script = """
    import json, sys, time
    from PIL import Image, ImageFilter, ImageOps
    # The photo is opaque: ours skips premultiplying opaque pixels, and Pillow does the
    # same work on an RGB image (4 bytes a pixel too), where on RGBA its resize and filter
    # convert to premultiplied RGBa and back. A rotation that is not a quarter turn leaves
    # transparent corners, so that case alone keeps RGBA on both sides.
    rgba = Image.frombytes("RGBA", (\(size.width), \(size.height)), open(sys.argv[1], "rb").read())
    im = rgba.convert("RGB")
    def fit(im, size, gap):
        # ImageOps.fit's centred crop, resized with Pillow's reducing_gap: ours reduces by
        # whole factors first too (Resampler.reducingGap, 3) when shrinking this much.
        w, h = im.size
        scale = max(size[0] / w, size[1] / h)
        cw, ch = size[0] / scale, size[1] / scale
        box = ((w - cw) / 2, (h - ch) / 2, (w + cw) / 2, (h + ch) / 2)
        return im.resize(size, Image.Resampling.LANCZOS, box=box, reducing_gap=gap)
    def med(f):
        f(); t = []; end = time.perf_counter() + \(budget)
        while len(t) < 5 or time.perf_counter() < end:
            s = time.perf_counter(); f(); t.append((time.perf_counter() - s) * 1000)
        return sorted(t)[len(t) // 2]
    cases = {\(cases.map { "\"\($0.0)\": lambda: \($0.1)" }.joined(separator: ", "))}
    print(json.dumps({k: med(f) for k, f in cases.items()}))
    """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, raw.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (try JSONSerialization.jsonObject(with: output) as? [String: Double]) ?? [:]
    } catch {
        return [:]
    }
}

do {
    var arguments = Array(CommandLine.arguments.dropFirst())[...]
    let corpus = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"] ?? "Corpus/sdwebimage"
    var file = corpus + "/TestImageLarge.jpg", budget = 1.0
    var size: ImageSize?
    while let argument = arguments.popFirst() {
        switch argument {
        case "--seconds": budget = arguments.popFirst().flatMap { Double($0) } ?? budget
        case "--size":
            let parts = (arguments.popFirst() ?? "").split(separator: "x").compactMap { Int($0) }
            if parts.count == 2 { size = ImageSize(width: parts[0], height: parts[1]) }
        default: file = argument
        }
    }
    var pixels = try CodersManager.shared.decode(Data(contentsOf: URL(fileURLWithPath: file))).pixels
    if let size { pixels = pixels.resized(to: size) }
    let image = Image(pixels: pixels, hasAlpha: false)
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent("transform-bench-\(getpid()).rgba")
    try Data(pixels.bytes).write(to: raw)
    defer { try? FileManager.default.removeItem(at: raw) }

    let half = ImageSize(width: pixels.width / 2, height: pixels.height / 2)
    let cases: [(name: String, transformer: any ImageTransformer, pillow: String)] = [
        ("resize fill to half", ResizeTransformer(size: half), "im.resize((\(half.width), \(half.height)), Image.Resampling.LANCZOS)"),
        ("resize aspectFill 256x256", ResizeTransformer(size: ImageSize(width: 256, height: 256), mode: .aspectFill),
         "fit(im, (256, 256), 3.0)"),
        ("crop centre quarter", CropTransformer(rect: PixelRect(x: half.width / 2, y: half.height / 2, width: half.width, height: half.height)),
         "im.crop((\(half.width / 2), \(half.height / 2), \(half.width / 2 + half.width), \(half.height / 2 + half.height))).load()"),
        ("flip horizontal", FlipTransformer(horizontal: true), "im.transpose(Image.Transpose.FLIP_LEFT_RIGHT)"),
        ("rotate 90", RotateTransformer(degrees: 90), "im.transpose(Image.Transpose.ROTATE_90)"),
        ("rotate 30 fit", RotateTransformer(degrees: 30), "rgba.rotate(30, Image.Resampling.BICUBIC, expand=True)"),
        ("blur sigma 2", BlurTransformer(radius: 2), "im.filter(ImageFilter.GaussianBlur(2))"),
        ("blur sigma 20", BlurTransformer(radius: 20), "im.filter(ImageFilter.GaussianBlur(20))"),
        ("blur sigma 100", BlurTransformer(radius: 100), "im.filter(ImageFilter.GaussianBlur(100))"),
        ("round corners 32", RoundCornerTransformer(radius: 32), "None"),
        ("tint sourceIn", TintTransformer(color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 128)), "None"),
    ]
    let reference = pillowTimings(raw, size: pixels.size, budget: budget, cases: cases.filter { $0.pillow != "None" }.map { ($0.name, $0.pillow) })
    print("transformers on \(pixels.size) (median ms; Pillow \(reference.isEmpty ? "unavailable" : "on the same pixels, as RGB (RGBA to rotate 30)")); ratio Pillow/ours, above 1 is ours faster")
    for entry in cases {
        let mine = try median(budget) { _ = try entry.transformer.transform(image) }
        let name = entry.name.padding(toLength: 28, withPad: " ", startingAt: 0)
        if let theirs = reference[entry.name] {
            print("\(name) ours \(String(format: "%8.2f", mine))   Pillow \(String(format: "%8.2f", theirs))   ratio \(String(format: "%5.2f", theirs / mine))x")
        } else {
            print("\(name) ours \(String(format: "%8.2f", mine))   (no Pillow equivalent)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("transform-bench: \(error)\n".utf8))
    exit(1)
}
