import Foundation

/// One APNG `fcTL` chunk: where a frame goes on the canvas, how long it shows and how it
/// is combined with what is already there.
struct APNGFrameControl: Equatable {
    /// What happens to the frame's rectangle after it has been shown.
    enum Dispose: UInt8 {
        case none = 0, background = 1, previous = 2
    }

    /// How the frame's pixels meet the canvas.
    enum Blend: UInt8 {
        case source = 0, over = 1
    }

    var sequence: UInt32
    var width: Int
    var height: Int
    var x: Int
    var y: Int
    var delayNumerator: UInt16
    var delayDenominator: UInt16
    var dispose: Dispose
    var blend: Blend

    /// Parses the 26-byte payload and checks the rectangle lies inside the canvas.
    init(payload bytes: UnsafeRawBufferPointer, canvas: ImageSize) throws {
        guard bytes.count == 26 else { throw WebImageError.badImageData("APNG fcTL chunk is \(bytes.count) bytes, not 26") }
        sequence = PNGChunks.readUInt32(bytes, at: 0)
        width = Int(PNGChunks.readUInt32(bytes, at: 4))
        height = Int(PNGChunks.readUInt32(bytes, at: 8))
        x = Int(PNGChunks.readUInt32(bytes, at: 12))
        y = Int(PNGChunks.readUInt32(bytes, at: 16))
        delayNumerator = PNGChunks.readUInt16(bytes, at: 20)
        delayDenominator = PNGChunks.readUInt16(bytes, at: 22)
        guard let dispose = Dispose(rawValue: bytes[24]), let blend = Blend(rawValue: bytes[25]) else {
            throw WebImageError.badImageData("APNG fcTL has an unknown dispose or blend operation")
        }
        self.dispose = dispose
        self.blend = blend
        // Values are at most 2^32 - 1, so the sums cannot overflow Int.
        guard width > 0, height > 0, x + width <= canvas.width, y + height <= canvas.height else {
            throw WebImageError.badImageData("APNG frame \(width)x\(height) at (\(x), \(y)) lies outside the \(canvas) canvas")
        }
    }

    /// Creates a control for encoding.
    init(sequence: UInt32, size: ImageSize, duration: TimeInterval) {
        self.sequence = sequence
        width = size.width
        height = size.height
        x = 0
        y = 0
        (delayNumerator, delayDenominator) = APNGFrameControl.delay(for: duration)
        dispose = .none
        blend = .source
    }

    /// The 26-byte payload.
    var payload: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(26)
        for value in [sequence, UInt32(width), UInt32(height), UInt32(x), UInt32(y)] {
            PNGChunks.appendUInt32(value, to: &out)
        }
        PNGChunks.appendUInt16(delayNumerator, to: &out)
        PNGChunks.appendUInt16(delayDenominator, to: &out)
        out += [dispose.rawValue, blend.rawValue]
        return out
    }

    /// Display time in seconds. A denominator of 0 means hundredths (APNG spec). Delays
    /// under 11 ms become 100 ms, as SDWebImage (and browsers) do for GIF and APNG, since
    /// such files were made for players that treated them as "as fast as possible".
    var duration: TimeInterval {
        let seconds = Double(delayNumerator) / Double(delayDenominator == 0 ? 100 : delayDenominator)
        return seconds < 0.011 ? 0.1 : seconds
    }

    /// The most precise fraction for `duration`: milliseconds when they fit in 16 bits,
    /// else coarser units, capped at 65535 seconds.
    static func delay(for duration: TimeInterval) -> (UInt16, UInt16) {
        let seconds = duration.isFinite ? max(0, duration) : 0
        for denominator in [1000.0, 100.0, 10.0, 1.0] {
            let numerator = (seconds * denominator).rounded()
            if numerator <= 65535 { return (UInt16(numerator), UInt16(denominator)) }
        }
        return (65535, 1)
    }
}
