import Foundation

/// Where a download that needs no decode puts its body as it arrives: a file, written
/// piece by piece, so the download's memory is one buffer rather than the whole body.
///
/// Given to ``Downloader/downloadFile(with:to:options:progress:completion:)``. The
/// downloader asks for a writer when the response head has passed its checks, hands it
/// the body in order as it arrives (in chunks of up to ``Downloader/Configuration/streamingBufferSize``
/// bytes), then commits it, or aborts it on any failure, cancellation or bad status, so a
/// destination never keeps a partial body. A class, because the downloader tells a
/// caller whether the body went to *its* destination by identity.
///
/// Implementations must be thread-safe. Every call (``makeWriter()`` and the writer's)
/// is **blocking** and is made off the event loops, in order, never two at once for one
/// download. ``DiskCache`` entries are one destination (see
/// ``ImageManager/loadOriginalData(with:options:context:progress:)``).
///
/// ```swift
/// final class Folder: DownloadDestination {
///     func makeWriter() throws -> any DownloadBodyWriter { try cache.makeEntryWriter(forKey: key) }
/// }
/// ```
public protocol DownloadDestination: AnyObject, Sendable {
    /// Opens a writer for one body. Throws when it cannot (the download then fails with
    /// the error).
    func makeWriter() throws -> any DownloadBodyWriter
}

/// The writer a ``DownloadDestination`` opens for one body: append, then commit or abort.
///
/// Declared beside ``DownloadDestination`` because neither means anything without the
/// other. Calls are blocking and never overlap; see ``DownloadDestination``.
public protocol DownloadBodyWriter: Sendable {
    /// Appends the next bytes of the body.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// The body is complete: makes it visible where it belongs and returns its file.
    func commit() throws -> URL
    /// The body will not complete: removes whatever was written. Does nothing after a commit.
    func abort()
}
