import Foundation
import WebImage

/// Sources read from one folder of the server's own disk: `local:///path` (imgproxy's scheme)
/// and `file:///path`, both naming `path` inside ``root``, as a web server's document root.
///
/// Off unless the operator names the folder (`WEBIMAGE_LOCAL_FILESYSTEM_ROOT`, as imgproxy's
/// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`): a URL chosen by a stranger must never reach any other
/// file. So a path is refused before it is opened when it has a `..` segment, a NUL byte, or
/// a host; and after the symbolic links in it are resolved, the file must still lie inside
/// the root (a link that points out of the folder is refused, not followed). The file
/// opened is checked again by its descriptor: a folder on the path swapped for a link
/// between the check and the open (by whoever may write inside the root) would otherwise
/// lead the open out of the root. What is read is bounded like a download: only regular files (a FIFO or a device is refused before a
/// byte is read), at most the byte limit, off Swift's cooperative pool.
///
/// ```swift
/// let source = try LocalFileSource(root: "/srv/images")
/// let bytes = try await source.read(URL(string: "local:///cats/1.jpg")!, maxBytes: 1 << 20)
/// ```
public struct LocalFileSource: Sendable {
    /// The folder, as an absolute path with its symbolic links resolved.
    public let root: String

    /// A source over the folder at `root`.
    /// - Throws: ``ImageServerError/badOptions(_:)`` naming the setting when `root` is not
    ///   an existing folder.
    public init(root: String) throws(ImageServerError) {
        var isDirectory: ObjCBool = false
        guard let resolved = FileIO.resolvedPath(root),
              FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw .badOptions("WEBIMAGE_LOCAL_FILESYSTEM_ROOT \"\(root)\" is not an existing folder")
        }
        self.root = resolved
    }

    /// Whether `url` is one of the schemes this source reads.
    public static func reads(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "local" || scheme == "file"
    }

    /// The bytes of the file `url` names.
    /// - Throws: ``ImageServerError``: 404 `source_forbidden` for a path that leaves the
    ///   root, 404 `source_missing` for no such file, 413 over `maxBytes`, 502 for a file
    ///   that cannot be read (not a regular file, no permission).
    public func read(_ url: URL, maxBytes: Int) async throws(ImageServerError) -> Data {
        // Both steps are file-system calls (`realpath` walks every link of the path, which
        // on a network file system can take long), so both run off the event loop.
        let (path, read) = try await BlockingIO.run { () throws(ImageServerError) -> (String, Result<Data, WebImageError>) in
            let path = try resolvedPath(of: url)
            return (path, Result { () throws(WebImageError) -> Data in try Self.readResolved(path, maxBytes: maxBytes) })
        }
        do {
            return try read.get()
        } catch {
            // The library's reason names the file's absolute path: the client is told the
            // path it asked for, not where the root lies on the server's disk. A local read's
            // reason (not a regular file, unreadable) says nothing about the network, so it
            // is the answer, not only the log's.
            let answer = ImageServerError.fetching(error)
            throw ImageServerError(
                status: answer.status, label: answer.label,
                message: (answer.detail ?? answer.message).replacingOccurrences(of: path, with: url.path)
            )
        }
    }

    /// The absolute path `url` names, with its links resolved, once it is known to lie
    /// inside ``root``.
    func resolvedPath(of url: URL) throws(ImageServerError) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .badOptions("malformed local source URL")
        }
        guard (components.host ?? "").isEmpty else {
            throw .badOptions("a local source names no host: \(components.scheme ?? "local"):///path")
        }
        let path = components.path
        guard !path.utf8.contains(0) else { throw .sourceForbidden("the local source's path has a NUL byte") }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.isEmpty else { throw .badOptions("the local source names no file") }
        guard !segments.contains("..") else {
            throw .sourceForbidden("the local source's path has a .. segment")
        }
        let joined = root + "/" + segments.joined(separator: "/")
        guard let resolved = FileIO.resolvedPath(joined) else {
            throw .sourceMissing("no such local source: \(path)")
        }
        guard resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            // The same answer as a missing file: a link's target outside the root is
            // nobody's business but the operator's, who finds it in the log.
            throw .sourceMissing("no such local source: \(path)", detail: "it leads out of WEBIMAGE_LOCAL_FILESYSTEM_ROOT")
        }
        return resolved
    }

    /// The bytes of the file at `resolvedPath` (a path from ``resolvedPath(of:)``, which has
    /// no links), refused unless the file opened is the one at that path: the open follows
    /// no link at the end, and the descriptor's own path (`/proc/self/fd`) must be the same
    /// path, so a folder on it replaced by a link since it was resolved is caught.
    static func readResolved(_ resolvedPath: String, maxBytes: Int) throws(WebImageError) -> Data {
        do {
            return try FileURLLoader.read(path: resolvedPath, limit: maxBytes, followsLinks: false) { descriptor in
                // The system's own record of the open file's path, read as it is: resolved
                // again (realpath), a folder on it swapped meanwhile could pass.
                openedPath(descriptor) == resolvedPath
            }
        } catch {
            throw WebImageError(error)
        }
    }

    /// The path of the file open as `descriptor`, as `/proc/self/fd` gives it; `nil` when it
    /// cannot be read.
    static func openedPath(_ descriptor: Int32) -> String? {
        guard case .text(let path) = FileIO.linkText("/proc/self/fd/\(descriptor)") else { return nil }
        return path
    }

}
