import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes to standard output and standard error with `write(2)`, never through
/// `FileHandle.write(_:)`, which traps when a write fails.
///
/// A write fails more often than it seems: once any socket opens, SwiftNIO ignores SIGPIPE
/// for the whole process, so a reader that went away (`webimage fetch … | head -1`) is an
/// `EPIPE` here instead of the signal that ends `cat` or curl quietly. The trapping write
/// turned it into a crash with a backtrace. Standard output that has lost its reader ends
/// the process as SIGPIPE would have (status 141 in the shell, nothing printed); one that
/// cannot take the bytes (`>/dev/full`) ends it with one line and status 1. A failed write
/// to standard error is dropped: there is nowhere left to report it.
enum StandardStreams {
    /// Writes `text` to standard output, or ends the process (see the type).
    static func output(_ text: String) {
        output(Data(text.utf8))
    }

    /// Writes `bytes` to standard output (an image for `-o -`), or ends the process.
    static func output(_ bytes: Data) {
        guard let failure = write(bytes, to: STDOUT_FILENO) else { return }
        // As an interruption's cleanup: no watched file is created after it.
        InterruptCleanup.cleaningUpThenEnding {
            if failure == EPIPE {
                signal(SIGPIPE, SIG_DFL)
                raise(SIGPIPE)
            }
            error("webimage: error: cannot write to standard output: \(String(cString: strerror(failure)))\n")
            exit(EXIT_FAILURE)
        }
    }

    /// Writes `text` to standard error; a failure is dropped.
    static func error(_ text: String) {
        _ = write(Data(text.utf8), to: STDERR_FILENO)
    }

    /// Standard input, whole (an image piped in for `-`), at most `limit` bytes: more is
    /// refused, as a longer input file is.
    static func input(limit: Int) throws -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw InputFileError(reason: "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return data }
            guard data.count + count <= limit else {
                throw InputFileError(reason: "standard input is larger than the limit of \(limit) bytes")
            }
            data.append(contentsOf: chunk[..<count])
        }
    }

    /// Writes all of `bytes`, retrying after interruptions and short writes; returns the
    /// `errno` of a failure.
    private static func write(_ bytes: Data, to descriptor: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}
