import Foundation

/// Watches a directory with inotify and reports whether anything opened or read a file in
/// it: the witness that a decoder did not follow a reference to a local file.
///
/// The kernel queues the events as the opens happen, so reading them after the work is
/// done sees every one; no timing is involved.
///
/// ```swift
/// let watch = try FileOpenWatch(directory: folder)
/// _ = try? SVGCoder().decode(svg, options: ImageCoderOptions())
/// #expect(try watch.openedFiles() == [])
/// ```
final class FileOpenWatch {
    private let descriptor: Int32

    /// Starts watching `directory` (not its subfolders) for opens and reads.
    init(directory: URL) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        guard inotify_add_watch(descriptor, directory.path, UInt32(IN_OPEN | IN_ACCESS)) >= 0 else {
            close(descriptor)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
    }

    deinit {
        close(descriptor)
    }

    /// The names of the files opened or read since the watch started (or the last call).
    func openedFiles() -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return names }
            var offset = 0
            let headerSize = MemoryLayout<inotify_event>.size
            while offset + headerSize <= count {
                let nameLength = buffer.withUnsafeBytes { raw in
                    Int(raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self).len)
                }
                let start = offset + headerSize
                let nameBytes = buffer[start..<min(count, start + nameLength)].prefix { $0 != 0 }
                names.append(String(decoding: nameBytes, as: UTF8.self))
                offset = start + nameLength
            }
        }
    }
}
