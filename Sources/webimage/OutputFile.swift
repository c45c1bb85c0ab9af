import Foundation
import WebImage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The file a command writes its result to (`-o`), never left half written.
///
/// Every command that writes a file goes through it. What the path names decides how:
/// - `-`, or a path to this process's standard output (`/dev/stdout` when it is a file):
///   standard output (``StandardStreams``);
/// - a symbolic link: the file at the end of the link, so the link stays a link. The
///   system follows it, with its own rules: where `fs.protected_symlinks` is on (most
///   distributions), a link someone else planted in a shared folder such as /tmp is
///   refused, as the shell's `>` refuses it;
/// - a character or block device or a FIFO (`/dev/stdout` when it is a pipe): written
///   straight into, opened without creating or truncating it;
/// - a directory or a socket: an error;
/// - an existing regular file: a temporary file beside it, renamed over it once whole, with
///   the old file's permission bits (and owner, when root writes it); refused when the user
///   may not write to the file. The new file is a new file: hard links to the old one keep
///   the old bytes, and its ACL and extended attributes are not carried over;
/// - nothing yet: a temporary file renamed into place.
///
/// A rename used to be the only way: it needs only the directory's permission, so it
/// replaced `/dev/null` (as root) with a regular file, a symbolic link or a FIFO with a
/// copy, and a read-only file the user could not write, with the mode lost.
///
/// ```swift
/// try OutputFile(path: output).write(png)
/// try OutputFile(path: output).copy(from: cacheEntry)
/// ```
///
/// Blocking: call it off the cooperative pool. Writing to a FIFO waits for a reader, as a
/// shell's `>` does.
struct OutputFile {
    /// The path as the user gave it, used in messages.
    let path: String

    /// A failure to write, worded for the user: "cannot write PATH: REASON".
    struct WriteError: Error, CustomStringConvertible {
        let description: String

        init(_ path: String, _ reason: String) {
            description = "cannot write \(path): \(reason)"
        }

        init(_ path: String, errno code: Int32) {
            self.init(path, String(cString: strerror(code)))
        }
    }

    /// Writes `data` as the whole content of the file.
    func write(_ data: Data) throws {
        try withDestination { sink in try data.withUnsafeBytes(sink) }
    }

    /// Writes the content of the file at `source` through a small buffer, so a large file is
    /// never held in memory whole.
    func copy(from source: URL) throws {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            throw InputFileError(reason: "cannot read \(source.path): \(String(cString: strerror(errno)))")
        }
        defer { close(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        try withDestination { sink in
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw InputFileError(reason: "cannot read \(source.path): \(String(cString: strerror(errno)))")
                }
                if count == 0 { return }
                try buffer.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            }
        }
    }

    /// The content's consumer: takes bytes in order until the content ends.
    private typealias Sink = (UnsafeRawBufferPointer) throws -> Void

    /// Writes all of `bytes`, retrying after interruptions and short writes.
    private func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteError(path, errno: errno)
            }
            offset += written
        }
    }

    /// Opens the destination as the type says, lets `produce` pass the content to the sink
    /// it is given, and puts the result in place. `-` goes through ``StandardStreams``, so a
    /// failed write to standard output ends the process as every command's does.
    private func withDestination(_ produce: (Sink) throws -> Void) throws {
        if path == "-" { return try produce { StandardStreams.output(Data($0)) } }
        // Opened only to learn what the path leads to: the system follows the links, with
        // its own checks, rather than this code reading them.
        let probe = open(path, Self.pathOnly | O_CLOEXEC)
        guard probe >= 0 else {
            guard errno == ENOENT else { throw WriteError(path, errno: errno) }
            return try writeNewFile(produce)
        }
        defer { close(probe) }
        var info = stat()
        guard fstat(probe, &info) == 0 else { throw WriteError(path, errno: errno) }
        // `-o /dev/stdout` or `/dev/stderr` (or `/dev/fd/N`): written to that stream, whatever
        // it is. On a file (`>> log`), a rename would replace it and lose what it held; on a
        // socket (a service's journal), an open would fail.
        var stream = stat()
        if fstat(STDOUT_FILENO, &stream) == 0, stream.st_dev == info.st_dev, stream.st_ino == info.st_ino {
            return try produce { StandardStreams.output(Data($0)) }
        }
        if fstat(STDERR_FILENO, &stream) == 0, stream.st_dev == info.st_dev, stream.st_ino == info.st_ino {
            return try produce { try writeAll($0, to: STDERR_FILENO) }
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            // The rename needs only the directory's permission: without this check a file
            // the user made read-only was replaced anyway.
            guard access(path, W_OK) == 0 else { throw WriteError(path, errno: errno) }
            // The file's own path when the name is no link (no /proc needed); where the
            // link leads otherwise, so the link stays and its file is replaced.
            var named = stat()
            let isLink = lstat(path, &named) == 0 && (named.st_mode & S_IFMT) == S_IFLNK
            try replace(isLink ? try realPath(of: probe) : path, keeping: info, produce)
        case S_IFDIR:
            throw WriteError(path, "is a directory")
        case S_IFSOCK:
            // open(2) cannot open a socket (ENXIO, "No such device or address").
            throw WriteError(path, "is a socket")
        default:
            try writeInPlace(probe, produce)
        }
    }

    /// Nothing at the path, or a link to nothing: a new file, made whole under a temporary
    /// name first. Through a link, the system makes the file where it points (with its
    /// checks), empty, and the content then replaces it; a failure removes it again.
    private func writeNewFile(_ produce: (Sink) throws -> Void) throws {
        var link = stat()
        guard lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK else {
            return try replace(path, keeping: nil, produce)
        }
        // Checked before the file is made: a name this code cannot hold would leave an
        // empty file behind.
        guard case .text = FileIO.linkText(path) else { throw WriteError(path, "it leads to a name that is not UTF-8") }
        let made = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0o666)
        guard made >= 0 else { throw WriteError(path, errno: errno) }
        defer { close(made) }
        var created = stat()
        guard fstat(made, &created) == 0 else { throw WriteError(path, errno: errno) }
        let target = try realPath(of: made)
        // Made by another process since the probe: a file like any existing one.
        guard created.st_size == 0 else { return try replace(target, keeping: created, produce) }
        do {
            try replace(target, keeping: nil, produce)
        } catch {
            // Only the empty file this run made (not one put in its place since).
            var now = stat()
            if stat(target, &now) == 0, now.st_dev == created.st_dev, now.st_ino == created.st_ino, now.st_size == 0 { unlink(target) }
            throw error
        }
    }

    /// Where the file open as `descriptor` lies, from the system's own record of it.
    private func realPath(of descriptor: Int32) throws -> String {
        switch FileIO.linkText("/proc/self/fd/\(descriptor)") {
        case .text(let target):
            return target
        case .notUTF8:
            throw WriteError(path, "it leads to a name that is not UTF-8")
        case .unreadable(let code):
            throw WriteError(path, "cannot find where it leads: \(String(cString: strerror(code)))")
        }
    }

    /// A device or a FIFO: no O_CREAT (it exists) and no O_TRUNC (a device has no length
    /// to cut); O_NOCTTY so that writing to a terminal never makes it ours. Opened again
    /// through the probe's descriptor, so it is the file probed (not one put in its place
    /// since); by name where /proc is missing.
    private func writeInPlace(_ probe: Int32, _ produce: (Sink) throws -> Void) throws {
        var descriptor = open("/proc/self/fd/\(probe)", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT { descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw WriteError(path, errno: errno) }
        do {
            try produce { try writeAll($0, to: descriptor) }
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 || errno == EINTR else { throw WriteError(path, errno: errno) }
    }

    /// Writes a hidden temporary file beside `target` and renames it over `target`, so a
    /// failed run leaves either the old file or none, never half of the new one. `existing`
    /// is the status of the file replaced: the new one gets its permission bits, and its
    /// owner when we may give it (root writing into a user's file leaves it theirs, as `cp`
    /// does; anyone else cannot give a file away, and the file is theirs as after any rename).
    private func replace(_ target: String, keeping existing: stat?, _ produce: (Sink) throws -> Void) throws {
        let directory = Self.directory(of: target)
        let temporary = (directory.isEmpty ? "." : directory) + "/.webimage-\(UUID().uuidString).tmp"
        // Ctrl-C while the content is made must not leave the hidden file behind. Watched
        // before it exists, so that no moment is left unwatched.
        let interrupt = InterruptCleanup(removing: URL(fileURLWithPath: temporary))
        defer { interrupt.cancel() }
        // 0666 less the umask for a new file, as any program's; an existing file's bits are
        // set below with fchmod, which the umask does not touch.
        let descriptor = InterruptCleanup.creating {
            open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existing == nil ? 0o666 : 0o600)
        }
        guard descriptor >= 0 else {
            // Say where: the file itself may be writable while its folder is not.
            throw WriteError(path, "cannot make a temporary file in \(directory.isEmpty ? "." : directory): \(String(cString: strerror(errno)))")
        }
        do {
            if let existing {
                if existing.st_uid != geteuid() || existing.st_gid != getegid() {
                    _ = fchown(descriptor, existing.st_uid, existing.st_gid)
                }
                guard fchmod(descriptor, existing.st_mode & 0o777) == 0 else { throw WriteError(path, errno: errno) }
            }
            try produce { try writeAll($0, to: descriptor) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        // A full disk on a network file system is reported only at close.
        guard close(descriptor) == 0 || errno == EINTR else {
            let code = errno
            unlink(temporary)
            throw WriteError(path, errno: code)
        }
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw WriteError(path, errno: code)
        }
    }

    /// Linux's `O_PATH` (asm-generic's value, which x86, ARM, RISC-V, PowerPC and s390
    /// share), which Swift's Glibc module leaves out: a descriptor that names a file without
    /// opening it for reading or writing, so no permission is needed and a device is not
    /// opened.
    private static let pathOnly: Int32 = 0o10000000

    /// The folder part of `path`: "" for a bare name, "/" for a name at the root. Not
    /// `NSString.deletingLastPathComponent`, which traps on a one-character bare name ("m")
    /// in swift-corelibs-foundation 6.3.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
