import Foundation

/// Loads images from `file://` URLs on the local disk.
///
/// The read runs through `BlockingIO`, not on the caller's thread nor on Swift's
/// cooperative pool (blocking I/O there would stall other tasks), and refuses files larger
/// than ``maximumFileSize``, and anything that is not a regular file (a FIFO, a device, a
/// directory), before reading them. Thread-safe.
///
/// ```swift
/// let url = URL(fileURLWithPath: "/srv/images/cat.jpg")
/// let result = try await FileURLLoader().load(url, options: .init(), progress: nil)
/// ```
public struct FileURLLoader: ImageLoader {
    /// The coder that decodes the bytes.
    public let coder: any ImageCoder
    /// The largest file read, in bytes; larger ones fail with
    /// ``WebImageError/responseTooLarge(limit:)``. Default 100 MiB.
    public let maximumFileSize: Int

    /// Creates a loader.
    public init(coder: any ImageCoder = CodersManager.shared, maximumFileSize: Int = 100 * 1024 * 1024) {
        self.coder = coder
        self.maximumFileSize = maximumFileSize
    }

    /// Whether `url` is a `file` URL.
    public func canLoad(_ url: URL) -> Bool {
        url.isFileURL
    }

    public func load(_ url: URL, options: DownloadRequestOptions, progress: LoadProgressHandler?) async throws(WebImageError) -> ImageLoaderOutput {
        do {
            guard canLoad(url) else { throw WebImageError.invalidURL(url.absoluteString) }
            progress?(LoadProgress(receivedSize: 0, expectedSize: -1, url: url))
            let limit = maximumFileSize
            let read = try await BlockingIO.run { try Self.read(url, limit: limit) }
            try Task.checkCancellation()
            let data = try options.decryptor.map { try $0.decryptedOrThrow(read) } ?? read
            progress?(LoadProgress(receivedSize: data.count, expectedSize: data.count, url: url))
            let coder = coder, decodeOptions = options.decodeOptions
            let image = try await BlockingIO.run { try coder.decode(data, options: decodeOptions) }
            try Task.checkCancellation()
            return ImageLoaderOutput(image: image, data: data, url: url)
        } catch {
            throw WebImageError(error)
        }
    }

    /// Reads at most `limit` bytes of a regular file; a longer file (even one that grew
    /// since it was opened) is refused rather than truncated. Anything else is refused
    /// before it is opened: a FIFO could block forever, a device (`/dev/zero`) reports no
    /// size and never ends (and opening some devices acts: a tape rewinds), a directory has
    /// no bytes.
    package static func read(_ url: URL, limit: Int) throws -> Data {
        try read(path: url.path, limit: limit)
    }

    /// ``read(_:limit:)`` for `path`, opened with `O_NOFOLLOW` added when `followsLinks` is
    /// false; `isOpenedFileAllowed` judges the file by its open descriptor before a byte is
    /// read (the image server checks there where the file opened lies, which no check
    /// of the path before the open can settle).
    package static func read(
        path: String,
        limit: Int,
        followsLinks: Bool = true,
        isOpenedFileAllowed: (Int32) -> Bool = { _ in true }
    ) throws -> Data {
        var named = stat()
        guard (followsLinks ? stat(path, &named) : lstat(path, &named)) == 0 else {
            throw WebImageError.network("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard (named.st_mode & S_IFMT) == S_IFREG else {
            throw WebImageError.network("cannot read \(path): not a regular file")
        }
        // Non-blocking, so a FIFO put in the file's place since the check cannot hold the
        // open; it changes nothing for a regular file.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followsLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            throw WebImageError.network("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        // The file opened must be the one checked, not one renamed into its place since.
        var opened = stat()
        guard fstat(fd, &opened) == 0, (opened.st_mode & S_IFMT) == S_IFREG,
              opened.st_dev == named.st_dev, opened.st_ino == named.st_ino, isOpenedFileAllowed(fd) else {
            throw WebImageError.network("cannot read \(path): it changed while it was opened")
        }
        do {
            // `Int.max` (no limit) must not overflow below, nor a negative one trap.
            let limit = max(0, limit)
            let size = try handle.seekToEnd()
            guard size <= UInt64(limit) else { throw WebImageError.responseTooLarge(limit: limit) }
            try handle.seek(toOffset: 0)
            // One byte past the limit, to notice a file that grew past it since the check.
            let data = try handle.read(upToCount: limit == .max ? limit : limit + 1) ?? Data()
            guard data.count <= limit else { throw WebImageError.responseTooLarge(limit: limit) }
            return data
        } catch let error as WebImageError {
            throw error
        } catch {
            throw WebImageError.network("cannot read \(path): \((error as NSError).localizedDescription)", underlying: error)
        }
    }
}
