extension PNGChunks {
    /// CRC-32 as PNG defines it (ISO 3309, reflected, polynomial 0xEDB88320), for checking
    /// the APNG chunks we rewrite and for writing new ones; libpng checks the rest.
    enum CRC32 {
        private static let table: [UInt32] = (0..<256).map { n in
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            return c
        }

        static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
            table.withUnsafeBufferPointer { t in
                var c: UInt32 = 0xFFFF_FFFF
                for byte in bytes { c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
                return c ^ 0xFFFF_FFFF
            }
        }
    }
}
