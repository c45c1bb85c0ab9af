import CTIFF
import Foundation

/// The in-memory "file" libtiff reads through `TIFFClientOpenExt`: a cursor over the bytes
/// being decoded, plus the first error libtiff reported for them.
///
/// libtiff calls back through C function pointers with this object as its `thandle_t`
/// (unretained; the caller keeps it alive for the TIFF handle's lifetime). Not thread-safe
/// and not meant to be: one decode owns one stream and libtiff calls it on that thread.
final class TIFFMemoryStream {
    /// The encoded bytes; valid for as long as the decode that made this stream runs.
    let bytes: UnsafeRawBufferPointer
    /// The read position, always within `0...bytes.count`.
    private(set) var position = 0
    /// libtiff's first error message, for the thrown error's reason.
    private(set) var firstError: String?

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The opaque handle libtiff passes back to the callbacks.
    var handle: thandle_t { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ handle: thandle_t?) -> TIFFMemoryStream? {
        handle.map { Unmanaged<TIFFMemoryStream>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Opens the bytes read-only with libtiff, errors and warnings routed to this stream
    /// and no single allocation inside libtiff larger than `maxAllocation`.
    func open(maxAllocation: Int) -> OpaquePointer? {
        guard let options = TIFFOpenOptionsAlloc() else { return nil }
        defer { TIFFOpenOptionsFree(options) }
        TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(maxAllocation))
        TIFFOpenOptionsSetErrorHandlerExtR(options, TIFFMemoryStream.errorHandler, handle)
        TIFFOpenOptionsSetWarningHandlerExtR(options, TIFFMemoryStream.warningHandler, handle)
        return TIFFClientOpenExt(
            "memory", "r", handle,
            TIFFMemoryStream.read, TIFFMemoryStream.write, TIFFMemoryStream.seek, TIFFMemoryStream.close,
            TIFFMemoryStream.size, TIFFMemoryStream.map, TIFFMemoryStream.unmap, options
        )
    }

    private func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        let length = max(0, min(count, bytes.count - position))
        guard length > 0, let base = bytes.baseAddress else { return 0 }
        destination.copyMemory(from: base + position, byteCount: length)
        position += length
        return length
    }

    /// Moves the cursor; a target outside the bytes fails (libtiff only reads here).
    private func seek(to offset: UInt64, whence: Int32) -> UInt64? {
        let origin: Int
        switch whence {
        case SEEK_SET: origin = 0
        case SEEK_CUR: origin = position
        case SEEK_END: origin = bytes.count
        default: return nil
        }
        // libtiff passes negative relative offsets as their two's complement.
        let (target, overflow) = origin.addingReportingOverflow(Int(truncatingIfNeeded: offset))
        guard !overflow, target >= 0, target <= bytes.count else { return nil }
        position = target
        return UInt64(target)
    }

    private func record(_ message: String) {
        if firstError == nil { firstError = message }
    }

    // MARK: - C callbacks

    private static let read: TIFFReadWriteProc = { handle, buffer, count in
        guard let stream = from(handle), let buffer, count > 0 else { return 0 }
        return tmsize_t(stream.read(into: buffer, count: Int(count)))
    }

    private static let write: TIFFReadWriteProc = { _, _, _ in 0 }

    private static let seek: TIFFSeekProc = { handle, offset, whence in
        from(handle)?.seek(to: offset, whence: whence) ?? UInt64.max
    }

    private static let close: TIFFCloseProc = { _ in 0 }

    private static let size: TIFFSizeProc = { handle in
        UInt64(from(handle)?.bytes.count ?? 0)
    }

    /// Lets libtiff read strips and tiles in place instead of copying them; it checks every
    /// offset against the size given here and never writes through the pointer in read mode.
    private static let map: TIFFMapFileProc = { handle, base, size in
        guard let stream = from(handle), let address = stream.bytes.baseAddress, let base, let size else { return 0 }
        base.pointee = UnsafeMutableRawPointer(mutating: address)
        size.pointee = UInt64(stream.bytes.count)
        return 1
    }

    private static let unmap: TIFFUnmapFileProc = { _, _, _ in }

    private static let errorHandler: TIFFErrorHandlerExtR = { _, userData, module, format, arguments in
        guard let stream = from(userData), let format, let arguments else { return 1 }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = vsnprintf(&buffer, buffer.count, format, arguments)
        let message = String(cBuffer: buffer)
        stream.record(module.map { "\(String(cString: $0)): \(message)" } ?? message)
        return 1
    }

    /// Warnings (unknown tags, odd but readable layouts) are dropped; returning 1 keeps
    /// libtiff from passing them on to its process-wide handler.
    private static let warningHandler: TIFFErrorHandlerExtR = { _, _, _, _, _ in 1 }
}
