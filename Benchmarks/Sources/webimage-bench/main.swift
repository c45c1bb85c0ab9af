// Times one decode configuration in-process and prints one JSON line, so the driver
// (Benchmarks/compare.py) can set it beside the reference tools' numbers.
//
//   webimage-bench FILE [--thumbnail N] [--first-frame-only] [--no-orientation] [--keep-profile] [--naive-cmyk] [--seconds S]
//
// --keep-profile decodes without the conversion to sRGB (the profile is only attached),
// which Benchmarks/color.py sets beside the default decode to price the conversion;
// --naive-cmyk converts CMYK without a profile by the naive formula instead of the default
// CMYK profile (color.py --cmyk prices that profile the same way).
import Foundation
import WebImage

struct Arguments {
    var file = ""
    var thumbnail: Int?
    var firstFrameOnly = false
    var seconds = 3.0
    var applyOrientation = true
    var keepProfile = false
    var naiveCMYK = false

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--thumbnail": thumbnail = rest.popFirst().flatMap { Int($0) }
            case "--first-frame-only": firstFrameOnly = true
            case "--no-orientation": applyOrientation = false
            case "--keep-profile": keepProfile = true
            case "--naive-cmyk": naiveCMYK = true
            case "--seconds": seconds = rest.popFirst().flatMap { Double($0) } ?? seconds
            default: file = argument
            }
        }
        if file.isEmpty { throw WebImageError.invalidURL("usage: webimage-bench FILE [--thumbnail N] [--first-frame-only] [--no-orientation] [--keep-profile] [--naive-cmyk] [--seconds S]") }
    }
}

func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

do {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments.file))
    var options = ImageCoderOptions()
    options.decodeFirstFrameOnly = arguments.firstFrameOnly
    options.applyOrientation = arguments.applyOrientation
    options.keepsColorProfile = arguments.keepProfile
    if arguments.naiveCMYK { options.defaultCMYKProfile = nil }
    if let side = arguments.thumbnail { options.thumbnailPixelSize = ImageSize(width: side, height: side) }
    var timings: [Double] = []
    // CPU time of the whole process (all threads) per decode: beside the wall time, what
    // work spread over several cores really costs.
    var cpuTimings: [Double] = []
    var last: Image?
    // One warm-up decode, then as many as fit in the time budget (at least five).
    _ = try CodersManager.shared.decode(data, options: options)
    let deadline = now() + arguments.seconds
    while timings.count < 5 || now() < deadline {
        let start = now(), cpuStart = now(CLOCK_PROCESS_CPUTIME_ID)
        last = try CodersManager.shared.decode(data, options: options)
        timings.append((now() - start) * 1000)
        cpuTimings.append((now(CLOCK_PROCESS_CPUTIME_ID) - cpuStart) * 1000)
    }
    timings.sort()
    cpuTimings.sort()
    let image = try CodersManager.shared.decode(data, options: options)
    _ = last
    print("{\"median_ms\": \(timings[timings.count / 2]), \"cpu_median_ms\": \(cpuTimings[cpuTimings.count / 2]), \"min_ms\": \(timings[0]), \"runs\": \(timings.count), \"width\": \(image.size.width), \"height\": \(image.size.height), \"frames\": \(image.frameCount)}")
} catch {
    FileHandle.standardError.write(Data("webimage-bench: \(error)\n".utf8))
    exit(1)
}
