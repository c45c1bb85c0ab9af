import Testing
@testable import WebImage

/// Hexadecimal digits both ways, and text out of C buffers: the helpers the cache's file
/// names, the server's tags, escapes and keys, and every C error message go through.
@Suite("Text from bytes")
struct TextFromBytesTests {
    @Test func everyByteRoundTripsThroughItsHexDigitsInEitherCase() {
        for value in 0...255 {
            let byte = UInt8(value)
            for uppercase in [false, true] {
                let (high, low) = byte.hexDigits(uppercase: uppercase)
                #expect(high.hexDigitValue.map { $0 << 4 | (low.hexDigitValue ?? 0xFF) } == byte)
                let letters = [high, low].filter { $0 > UInt8(ascii: "9") }
                #expect(letters.allSatisfy { uppercase ? (0x41...0x46).contains($0) : (0x61...0x66).contains($0) })
            }
        }
    }

    @Test func hexStringIsLowercaseTwoDigitsPerByte() {
        #expect(String(hex: [0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(String(hex: [UInt8]()) == "")
    }

    @Test func onlyHexDigitsHaveAValue() {
        let digits = Set("0123456789abcdefABCDEF".utf8)
        for value in 0...255 where !digits.contains(UInt8(value)) {
            #expect(UInt8(value).hexDigitValue == nil)
        }
    }

    @Test func cBufferTextStopsAtTheFirstNulOrTheEnd() {
        #expect(String(cBuffer: [104, 105, 0, 120]) == "hi")
        #expect(String(cBuffer: [CChar](repeating: 65, count: 3)) == "AAA")
    }
}
