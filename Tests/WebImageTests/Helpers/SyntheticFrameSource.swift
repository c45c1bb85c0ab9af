import Dispatch
import Foundation
@testable import WebImage

/// A lazily decoded test animation: frame N is a solid colour made on demand, so tests can
/// count decodes, and frames at `gatedFrom` or later block until ``release()`` (a decoder
/// that lags behind the clock). Frames at `failingFrom` or later fail, as every frame after
/// a damaged one of a sequential format does.
final class SyntheticFrameSource: AnimatedImageCoder {
    static func canDecodeAnimation(_ data: Data) -> Bool { false }

    let animatedImageData = Data()
    let properties: AnimatedImageProperties
    private let gatedFrom: Int
    private let failingFrom: Int
    private let gate = DispatchSemaphore(value: 0)
    private let released = LockedValue(false)
    private let decodes = LockedValue<[Int]>([])

    init(durations: [TimeInterval], loopCount: Int = 0, size: Int = 8, gatedFrom: Int = .max, failingFrom: Int = .max) {
        properties = AnimatedImageProperties(
            format: .undefined, loopCount: loopCount, durations: durations,
            frameSize: ImageSize(width: size, height: size), hasAlpha: false)
        self.gatedFrom = gatedFrom
        self.failingFrom = failingFrom
    }

    convenience init(animatedImageData data: Data, options: ImageCoderOptions) throws {
        self.init(durations: [0.1, 0.2, 0.3])
    }

    /// Frame indices decoded so far, in order.
    var decodedIndices: [Int] { decodes.withLock { $0 } }

    /// Lets gated decodes (waiting now and later) go on.
    func release() {
        released.withLock { $0 = true }
        gate.signal()
    }

    static func color(of index: Int) -> RGBAColor {
        RGBAColor(red: UInt8(truncatingIfNeeded: index * 40), green: UInt8(truncatingIfNeeded: 255 - index * 40), blue: 7, alpha: 255)
    }

    func frame(at index: Int) throws -> PixelBuffer {
        if index >= gatedFrom, !released.withLock({ $0 }) {
            gate.wait()
            gate.signal()   // let any other waiter through too
        }
        decodes.withLock { $0.append(index) }
        if index >= failingFrom { throw WebImageError.badImageData("frame \(index) is damaged") }
        return PixelBuffer(width: properties.frameSize.width, height: properties.frameSize.height, filling: Self.color(of: index))
    }
}
