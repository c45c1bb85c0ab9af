#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Linux extended attributes (`fgetxattr`, `fsetxattr`, `fremovexattr`) for the disk cache.
///
/// Swift's `Glibc` module does not import `<sys/xattr.h>`, so the three calls are looked up
/// once in the C library that is already loaded. Their signatures are fixed by the kernel
/// ABI and glibc. When a symbol is missing, or the file system refuses user attributes,
/// callers fall back to a sidecar file. Thread-safe: the table is immutable.
enum ExtendedAttributes {
    private typealias GetFunction = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    private typealias SetFunction = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    private typealias RemoveFunction = @convention(c) (Int32, UnsafePointer<CChar>) -> Int32
    private typealias PathGetFunction = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int

    private struct Functions: Sendable {
        let get: GetFunction?
        let set: SetFunction?
        let remove: RemoveFunction?
        let pathGet: PathGetFunction?
    }

    /// `dlsym(RTLD_DEFAULT, ...)`: RTLD_DEFAULT is the null handle on glibc and musl.
    private static let functions = Functions(
        get: dlsym(nil, "fgetxattr").map { unsafeBitCast($0, to: GetFunction.self) },
        set: dlsym(nil, "fsetxattr").map { unsafeBitCast($0, to: SetFunction.self) },
        remove: dlsym(nil, "fremovexattr").map { unsafeBitCast($0, to: RemoveFunction.self) },
        pathGet: dlsym(nil, "lgetxattr").map { unsafeBitCast($0, to: PathGetFunction.self) }
    )

    /// The outcome of reading one attribute.
    enum ReadResult {
        case value([UInt8])
        /// The file has no such attribute.
        case absent
        /// The file system (or the C library) does not do user attributes.
        case unsupported
    }

    /// The largest attribute value read; Linux allows at most 64 KiB per value.
    static let maximumSize = 65_536

    /// Reads attribute `name` of the open file `fd`.
    static func get(_ name: String, fd: Int32) -> ReadResult {
        guard let get = functions.get else { return .unsupported }
        return read { get(fd, name, $0, $1) }
    }

    /// Reads attribute `name` of the file at `path` (not following a symbolic link).
    static func get(_ name: String, path: String) -> ReadResult {
        guard let get = functions.pathGet else { return .unsupported }
        return read { get(path, name, $0, $1) }
    }

    /// Calls `get` with a buffer, growing it when the value does not fit.
    private static func read(_ get: (UnsafeMutableRawPointer?, Int) -> Int) -> ReadResult {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { get($0.baseAddress, $0.count) }
            if count >= 0 { return .value(Array(buffer[0..<count])) }
            switch errno {
            case ERANGE where buffer.count < maximumSize:
                // The value is larger than the buffer: ask its size and retry.
                let size = get(nil, 0)
                guard size > 0 else { return .absent }
                buffer = [UInt8](repeating: 0, count: min(maximumSize, max(size, buffer.count * 2)))
            case ENODATA: return .absent
            case ENOTSUP, ENOSYS: return .unsupported
            default: return .absent
            }
        }
    }

    /// Sets attribute `name` of the open file `fd`. Returns `false` when the file system
    /// cannot hold it (no user attributes, or the value is too large for it).
    static func set(_ name: String, value: [UInt8], fd: Int32) -> Bool {
        guard let set = functions.set else { return false }
        let result = value.withUnsafeBytes { set(fd, name, $0.baseAddress, $0.count, 0) }
        return result == 0
    }

    /// Removes attribute `name` of the open file `fd`; a missing attribute is not an error.
    static func remove(_ name: String, fd: Int32) {
        guard let remove = functions.remove else { return }
        _ = remove(fd, name)
    }
}
