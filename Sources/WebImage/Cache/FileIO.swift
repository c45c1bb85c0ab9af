import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The POSIX file operations the disk cache is built on: whole-file reads into one
/// allocation, atomic replacement, and directory listing that tolerates files vanishing.
///
/// Plain system calls rather than `FileManager`, because a cache hit must cost little more
/// than a raw `read`, and because another process may remove any file at any moment: every
/// call here treats a missing file as a normal outcome. Stateless and thread-safe.
/// Package-wide: the command line and the server read links with ``linkText(_:)``.
package enum FileIO {
    /// `UTIME_NOW` and `UTIME_OMIT` from `<sys/stat.h>` (Linux ABI); Swift does not import them.
    private static let utimeNow = (1 << 30) - 1
    private static let utimeOmit = (1 << 30) - 2

    /// A file that was read: its bytes and the descriptor, still open, for follow-up calls.
    struct ReadFile: ~Copyable {
        let data: Data
        let fd: Int32
        /// The file's last modification: for entries, when they were written.
        let modificationDate: Date

        deinit { close(fd) }
    }

    /// Opens and reads the whole regular file at `path`; `nil` when it does not exist, is
    /// not a regular file (a symbolic link, a FIFO, a directory), cannot be read, or is
    /// larger than `limit` bytes (refused before any allocation). The
    /// descriptor stays open in the result (closed when it is dropped), so attributes are
    /// read from the same file even if it is replaced meanwhile. With `mapped`, the bytes
    /// are the file mapped into memory rather than read (see
    /// ``DiskCache/Configuration/readsMemoryMapped``).
    static func read(_ path: String, limit: Int = .max, mapped: Bool = false) -> ReadFile? {
        // Non-blocking, so a FIFO found in place of a file (with no writer) is refused below
        // instead of blocking the open forever; it changes nothing for a regular file. Not
        // through a symbolic link: every other operation of the cache (listing, size,
        // trimming, clearing) sees only regular files, so a link planted in the folder
        // would be served yet never counted, trimmed or cleared.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        let size = Int(info.st_size)
        guard size <= limit, let data = mapped && size > 0 ? map(fd, size: size) : readAll(fd, expectedSize: size) else {
            close(fd)
            return nil
        }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        return ReadFile(data: data, fd: fd, modificationDate: modified)
    }

    /// Reads `fd` to its end into one allocation handed to `Data` without a copy. A file
    /// shorter than `expectedSize` gives what it holds; our entries are never rewritten in
    /// place (only replaced by rename), so that happens only to files changed by others.
    private static func readAll(_ fd: Int32, expectedSize: Int) -> Data? {
        guard expectedSize > 0 else { return Data() }
        guard let buffer = malloc(expectedSize) else { return nil }
        var total = 0
        while total < expectedSize {
            let count = Glibc.read(fd, buffer + total, expectedSize - total)
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                free(buffer)
                return nil
            }
            if count == 0 { break }
            total += count
        }
        return Data(bytesNoCopy: buffer, count: total, deallocator: .free)
    }

    /// Maps `size` bytes of `fd` read-only and private; the mapping is released with the
    /// `Data`. Our entries are only ever replaced by rename, never rewritten or truncated in
    /// place, so a mapped entry keeps its bytes however the cache changes meanwhile.
    private static func map(_ fd: Int32, size: Int) -> Data? {
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// Sets the access date of the open file to now, leaving the modification date alone.
    /// Done explicitly because `noatime` and `relatime` mounts do not keep access dates.
    static func touchAccessDate(_ fd: Int32) {
        var times = [timespec(tv_sec: 0, tv_nsec: utimeNow), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
        _ = futimens(fd, &times)
    }

    /// Sets the access and modification dates of the file at `path` (for tests and tools).
    static func setDates(_ path: String, access: Date?, modification: Date?) -> Bool {
        func spec(_ date: Date?) -> timespec {
            guard let date else { return timespec(tv_sec: 0, tv_nsec: utimeOmit) }
            let seconds = date.timeIntervalSince1970.rounded(.down)
            return timespec(tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1e9))
        }
        var times = [spec(access), spec(modification)]
        return utimensat(AT_FDCWD, path, &times, 0) == 0
    }

    /// Writes `data` to a new uniquely named hidden file in `directory`, lets `prepare` set
    /// attributes on it, optionally `fsync`s it, and renames it over `path`. Readers see the
    /// old file or the new one, never a part; a crash leaves at most a hidden temporary file.
    /// Creates `directory` when it is missing (another process may have cleared it).
    static func writeAtomically(
        _ data: Data,
        to path: String,
        in directory: String,
        sync: Bool,
        prepare: (Int32) throws -> Void = { _ in }
    ) throws {
        let (fd, temporary) = try createTemporary(in: directory)
        do {
            try data.withUnsafeBytes { try writeAll($0, to: fd) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        try commitTemporary(fd, at: temporary, to: path, sync: sync, prepare: prepare)
    }

    /// Creates a new uniquely named hidden file in `directory` (created when missing) and
    /// returns its open descriptor and path: the first half of an atomic write, which
    /// ``commitTemporary(_:at:to:sync:prepare:)`` or an `unlink` ends.
    static func createTemporary(in directory: String) throws -> (fd: Int32, path: String) {
        var attempt = 0
        while true {
            let temporary = directory + "/" + temporaryName()
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { return (fd, temporary) }
            let code = errno
            if code == ENOENT, attempt == 0 {
                attempt += 1
                try makeDirectory(directory)
                continue
            }
            throw CocoaError.error(code, path: temporary)
        }
    }

    /// The second half of an atomic write: lets `prepare` set attributes on the temporary
    /// file `fd`, optionally `fsync`s it, closes it and renames it over `path`. On any
    /// failure the temporary file is removed and the error thrown; `fd` is closed either way.
    static func commitTemporary(
        _ fd: Int32,
        at temporary: String,
        to path: String,
        sync: Bool,
        prepare: (Int32) throws -> Void = { _ in }
    ) throws {
        do {
            try prepare(fd)
            if sync, fsync(fd) != 0 { throw CocoaError.error(errno, path: temporary) }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw CocoaError.error(code, path: path)
        }
    }

    /// Bytes per `write` call: bounded so one call never pins a huge kernel copy, and so a
    /// large entry is written in several calls, as it would be under memory pressure (the
    /// crash test relies on that to catch non-atomic writes).
    private static let writeChunkSize = 256 * 1024

    /// Writes every byte of `bytes` to `fd`, retrying interrupted and short writes.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let count = write(fd, base + written, min(writeChunkSize, bytes.count - written))
            if count < 0, errno == EINTR { continue }
            if count <= 0 { throw CocoaError.error(errno, path: nil) }
            written += count
        }
    }

    /// The prefix of temporary files; hidden, so listings skip them.
    static let temporaryPrefix = ".tmp-"

    private static func temporaryName() -> String {
        let high = UInt64.random(in: .min ... .max)
        let low = UInt64.random(in: .min ... .max)
        return temporaryPrefix + String(high, radix: 16) + String(low, radix: 16)
    }

    /// Creates `path` and its missing parents; an existing directory is fine.
    static func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
            throw error
        }
    }

    /// Removes the file at `path`; `true` when this call removed it.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// The `stat` of `path` without following a symbolic link; `nil` when it is gone.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// The names in `directory` except `.` and `..`; empty when it does not exist.
    static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        // POSIX lets a listing return a name twice when the file was removed and made again
        // while it ran (another process trimming and storing the same key; seen on NFS and
        // btrfs): every caller wants each file once, and one built a dictionary that traps
        // on a repeated key.
        var seen: Set<String> = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name, String.init(cBuffer:))
            if name != ".", name != "..", seen.insert(name).inserted { names.append(name) }
        }
        return names
    }

    /// What a symbolic link holds, as ``linkText(_:)`` reads it.
    package enum LinkText: Equatable {
        case text(String)
        /// Bytes that are not UTF-8: a Swift string made from them would name another file.
        case notUTF8
        /// `readlink` failed (not a link, gone) with this `errno`.
        case unreadable(Int32)
    }

    /// `path` absolute with every symbolic link resolved (`realpath`), or `nil` when it
    /// does not exist.
    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The text of the symbolic link at `path`, as the system holds it (not resolved
    /// further). `/proc/self/fd/N` gives where the file open as descriptor N lies.
    package static func linkText(_ path: String) -> LinkText {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return .unreadable(count == 0 ? ENOENT : errno) }
        guard let text = String(validating: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) else { return .notUTF8 }
        return .text(text)
    }
}

extension CocoaError {
    /// A Foundation file error for `code` (an `errno`), so callers get one error vocabulary.
    static func error(_ code: Int32, path: String?) -> Error {
        let posix = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        guard let path else { return posix }
        return CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: posix])
    }
}

extension stat {
    /// Modification date.
    var modificationDate: Date { Date(st_mtim) }
    /// Access date.
    var accessDate: Date { Date(st_atim) }
    /// Status-change date (`ctime`).
    var changeDate: Date { Date(st_ctim) }
    /// The bytes of disk the file takes: `st_blocks` counts 512-byte units whatever the
    /// file system's block size.
    var allocatedSize: Int {
        let (bytes, overflow) = Int(st_blocks).multipliedReportingOverflow(by: 512)
        return overflow ? .max : bytes
    }
}

extension Date {
    init(_ time: timespec) {
        self.init(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
}
