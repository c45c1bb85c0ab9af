import Foundation

/// What the kernel says about free memory, for the player's automatic buffer size.
enum SystemMemory {
    /// `MemAvailable` from `/proc/meminfo`, in bytes: what can be allocated without
    /// swapping, counting reclaimable caches. `nil` where the file is missing or unreadable.
    static func availableBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        return parseAvailable(text)
    }

    /// The `MemAvailable:  N kB` line of a meminfo text, in bytes.
    static func parseAvailable(_ meminfo: String) -> Int? {
        for line in meminfo.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            let (bytes, overflow) = kilobytes.multipliedReportingOverflow(by: 1024)
            return overflow ? nil : bytes
        }
        return nil
    }
}
