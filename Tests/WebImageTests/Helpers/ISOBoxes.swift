import Testing

/// Byte surgery on ISO base media files (AVIF, HEIF) for the hostile-header tests.
enum ISOBoxes {
    /// `bytes` with the width and height of every `ispe` box set to 60000; fails the test
    /// when the file has no `ispe` box.
    static func claiming60000Square(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let boxes = offsets(of: Array("ispe".utf8), in: bytes)
        try #require(!boxes.isEmpty, sourceLocation: sourceLocation)
        var patched = bytes
        for ispe in boxes {
            for offset in [ispe + 8, ispe + 12] {
                patched.replaceSubrange(offset..<offset + 4, with: [0, 0, 0xEA, 0x60])   // 60000
            }
        }
        return patched
    }

    private static func offsets(of needle: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard bytes.count >= needle.count else { return [] }
        return (0...(bytes.count - needle.count)).filter { Array(bytes[$0..<$0 + needle.count]) == needle }
    }
}
