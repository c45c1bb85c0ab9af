// Times the cache against its references and prints one line per measurement:
// ours, the reference, and the ratio (ours / reference; below 1 means ours is faster for
// times, above 1 for rates).
//
//   cache-bench [--memory-only] [--disk-only] [--entries N] [--entry-size BYTES] [--directory DIR]
//
// Memory: MemoryCache<String, Image> against Foundation's NSCache<NSString, Image> (get and
// set, one thread and two; best of three alternating rounds). Disk: DiskCache store/hit of N entries against raw
// open/write/rename and open/read of the same bytes in the same directory, plus a trim of
// N files.
import Foundation
import WebImage

struct Arguments {
    var memory = true
    var disk = true
    var entries = 10_000
    var entrySize = 100_000
    var directory: String?

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--memory-only": disk = false
            case "--disk-only": memory = false
            case "--entries": entries = rest.popFirst().flatMap { Int($0) } ?? entries
            case "--entry-size": entrySize = rest.popFirst().flatMap { Int($0) } ?? entrySize
            case "--directory": directory = rest.popFirst()
            default: break
            }
        }
    }
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Runs `body` on `threads` threads at once and returns the wall time in seconds.
func timed(threads: Int, _ body: @escaping @Sendable (Int) -> Void) -> Double {
    let start = now()
    if threads == 1 {
        body(0)
    } else {
        DispatchQueue.concurrentPerform(iterations: threads, execute: body)
    }
    return now() - start
}

/// Runs `ours` and `reference` alternately `rounds` times and returns the best time of
/// each, so load from other jobs on the machine hits both sides alike.
func bestOfAlternating(rounds: Int = 3, ours: () throws -> Double, reference: () throws -> Double) rethrows -> (Double, Double) {
    var best = (Double.infinity, Double.infinity)
    for _ in 0..<rounds {
        best.0 = min(best.0, try ours())
        best.1 = min(best.1, try reference())
    }
    return best
}

func report(_ name: String, ours: Double, reference: Double, unit: String, referenceName: String) {
    let ratio = ours / reference
    let line = String(
        format: "%-34@ ours %10.3f %@   %@ %10.3f %@   ratio %.2f",
        name as NSString, ours, unit as NSString, referenceName as NSString, reference, unit as NSString, ratio
    )
    print(line)
}

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
if arguments.memory { MemoryBenchmark().run() }
if arguments.disk {
    do {
        try DiskBenchmark(arguments: arguments).run()
    } catch {
        FileHandle.standardError.write(Data("cache-bench: \(error)\n".utf8))
        exit(1)
    }
}
