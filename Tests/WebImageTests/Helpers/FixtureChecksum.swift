/// zlib's CRC-32 of pixel bytes, as Python's `zlib.crc32` computes it for the reference
/// files; shared by the GIF and WebP suites. Written here rather than taken from the PNG
/// coder so the check stays independent of the code under test.
enum FixtureChecksum {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// zlib's CRC-32, as Python's `zlib.crc32`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { input in
                var crc: UInt32 = 0xFFFF_FFFF
                for byte in input { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
                return crc ^ 0xFFFF_FFFF
            }
        }
    }
}
