import Foundation

/// A copy of some data at an address that stays put, for a C decoder that keeps a pointer
/// to its input between calls: libavif's and libwebp's animation decoders read frame N
/// long after they were created, and `Data` lends its address only inside
/// `withUnsafeBytes`.
///
/// Freed with the last reference. An owner that also holds a C decoder reading these
/// bytes frees the decoder in its `deinit`; its stored properties (this one among them)
/// are released after that body, so the bytes always outlive the decoder. Not
/// thread-safe on its own; its owners keep it behind their lock.
final class PinnedBytes {
    /// The copy: as many bytes as the data had, 16-byte aligned for the decoders' SIMD reads.
    let buffer: UnsafeMutableRawBufferPointer

    /// Copies `data` into memory of its own.
    init(copying data: Data) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.copyBytes(to: buffer)
    }

    deinit {
        buffer.deallocate()
    }

    /// The first byte, as the C decoders take it; `nil` for an empty copy.
    var base: UnsafePointer<UInt8>? {
        buffer.baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) }
    }

    /// The number of bytes.
    var count: Int { buffer.count }
}
