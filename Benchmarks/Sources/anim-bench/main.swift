// Animation benchmarks, one JSON line per run, for Benchmarks/compare.py.
//
//   anim-bench FILE --lazy [--seconds S]     median time to decode every frame through AnimatedImage
//   anim-bench FILE --play --buffer BYTES    play once through with a manual clock (run under
//                                            /usr/bin/time for peak memory)
//   anim-bench FILE --upfront                decode every frame at once and hold them (the
//                                            memory baseline)
import Foundation
import Synchronization
import WebImage

/// A clock the benchmark advances itself, so playing through takes no real waiting.
final class SteppedClock: AnimationClock {
    private let time = Mutex(Duration.zero)
    var now: Duration { time.withLock { $0 } }
    func advance(by step: Duration) { time.withLock { $0 += step } }
}

func seconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func decodeAllLazily(_ data: Data) throws -> Int {
    let animation = try AnimatedImage(data: data)
    for index in 0..<animation.frameCount { _ = try animation.frame(at: index) }
    return animation.frameCount
}

do {
    var arguments = Array(CommandLine.arguments.dropFirst())[...]
    var file = "", mode = "", buffer = 1, budget = 3.0
    while let argument = arguments.popFirst() {
        switch argument {
        case "--lazy", "--play", "--upfront": mode = argument
        case "--buffer": buffer = arguments.popFirst().flatMap { Int($0) } ?? buffer
        case "--seconds": budget = arguments.popFirst().flatMap { Double($0) } ?? budget
        default: file = argument
        }
    }
    guard !file.isEmpty, !mode.isEmpty else {
        throw WebImageError.invalidURL("usage: anim-bench FILE (--lazy [--seconds S] | --play --buffer BYTES | --upfront)")
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    switch mode {
    case "--lazy":
        _ = try decodeAllLazily(data)
        var timings: [Double] = []
        let deadline = seconds() + budget
        while timings.count < 5 || seconds() < deadline {
            let start = seconds()
            _ = try decodeAllLazily(data)
            timings.append((seconds() - start) * 1000)
        }
        timings.sort()
        print("{\"median_ms\": \(timings[timings.count / 2]), \"runs\": \(timings.count)}")
    case "--play":
        var configuration = AnimatedImagePlayer.Configuration()
        configuration.maxBufferSize = buffer
        configuration.loopCount = 1
        let clock = SteppedClock()
        let player = AnimatedImagePlayer(image: try AnimatedImage(data: data), clock: clock, configuration: configuration)
        player.play()
        var shown = 1, largest = 0
        // 10 ms ticks, like a 100 Hz display link; a frame not decoded yet is waited for.
        while !player.isFinished, player.error == nil {
            clock.advance(by: .milliseconds(10))
            if player.tick() { shown += 1 }
            largest = max(largest, player.bufferedFrameCount)
            if !player.isFinished { usleep(200) }
        }
        print("{\"frames_shown\": \(shown), \"max_buffered\": \(largest), \"buffer_capacity\": \(player.maxBufferCount)}")
    default:
        let image = try CodersManager.shared.decode(data)
        print("{\"frames\": \(image.frameCount), \"memory_cost\": \(image.memoryCost)}")
    }
} catch {
    FileHandle.standardError.write(Data("anim-bench: \(error)\n".utf8))
    exit(1)
}
