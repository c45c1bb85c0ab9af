import CJPEG
import Foundation

extension JPEGCoder {
    /// libjpeg's quality (1...100) for a compression quality in 0...1.
    static func libjpegQuality(_ compressionQuality: Double) -> Int {
        guard compressionQuality.isFinite else { return 100 }
        return min(100, max(1, Int((compressionQuality * 100).rounded())))
    }

    /// Compresses opaque RGBA `pixels` (the alpha byte is ignored) at libjpeg `quality`.
    static func compress(_ pixels: PixelBuffer, quality: Int) throws -> Data {
        guard let width = UInt32(exactly: pixels.width), let height = UInt32(exactly: pixels.height) else {
            throw WebImageError.encodingFailed("image of \(pixels.size) is too large for JPEG")
        }
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        let status = pixels.bytes.withUnsafeBufferPointer { bytes in
            cjpeg_encode_rgbx(bytes.baseAddress, width, height, pixels.bytesPerRow, Int32(quality), &output, &outputSize, &message)
        }
        guard status == 0, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw WebImageError.encodingFailed(reason.isEmpty ? "libjpeg failed" : reason)
        }
        // libjpeg malloc'd the buffer; Data takes it over and frees it, without a copy.
        return Data(bytesNoCopy: output, count: Int(outputSize), deallocator: .free)
    }
}
