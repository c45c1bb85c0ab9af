/// The logical screen a GIF's frames are composited onto, with the disposal rules browsers use.
///
/// The GIF89a specification says disposal method 2 restores the frame's area "to the
/// background color"; every browser (and SDWebImage through ImageIO) clears it to transparent
/// instead, and ignores the background colour index, so that is what this canvas does. The
/// canvas starts fully transparent for the same reason. Pixels a frame marks with its
/// transparency index, and indices past the end of its colour table, leave the canvas as it was.
/// Frames reaching past the canvas are clipped to it.
struct GIFCanvas {
    /// What happens to a frame's area after it has been shown: the compositing formats'
    /// one set of disposals, so ``CanvasTransparency`` follows a GIF's without a mapping.
    typealias Disposal = CanvasTransparency.Disposal

    let width: Int
    let height: Int
    /// RGBA, straight alpha, rows packed.
    private(set) var rgba: [UInt8]
    private var frameRect = (x0: 0, y0: 0, x1: 0, y1: 0)
    private var disposal = Disposal.keep
    private var savedArea: [UInt8] = []

    /// A transparent canvas. The caller has checked the size against the pixel limit.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        rgba = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// Prepares to draw `image`: remembers its clipped area and, for
    /// ``Disposal/restorePrevious``, what lies under it now.
    mutating func begin(_ image: GIFImageDescriptor, disposal: Disposal) {
        frameRect = (
            x0: min(image.left, width), y0: min(image.top, height),
            x1: min(image.left + image.width, width), y1: min(image.top + image.height, height)
        )
        self.disposal = disposal
        savedArea = []
        guard disposal == .restorePrevious else { return }
        let rowBytes = (frameRect.x1 - frameRect.x0) * 4
        savedArea.reserveCapacity(rowBytes * (frameRect.y1 - frameRect.y0))
        for y in frameRect.y0..<frameRect.y1 {
            let start = (y * width + frameRect.x0) * 4
            savedArea.append(contentsOf: rgba[start..<start + rowBytes])
        }
    }

    /// Draws row `row` of the frame begun with ``begin(_:disposal:)``.
    mutating func draw(row: Int, indices: UnsafeBufferPointer<UInt8>, of image: GIFImageDescriptor,
                       palette: GIFPalette, transparentIndex: Int?) {
        let y = image.top + row
        guard y >= frameRect.y0, y < frameRect.y1, frameRect.x0 < frameRect.x1 else { return }
        let skip = transparentIndex ?? -1
        let count = palette.count
        let firstX = frameRect.x0, lastX = frameRect.x1, left = image.left, width = self.width
        palette.rgba.withUnsafeBufferPointer { colors in
            rgba.withUnsafeMutableBufferPointer { canvas in
                var out = (y * width + firstX) * 4
                for x in firstX..<lastX {
                    let index = Int(indices[x - left])
                    if index != skip, index < count {
                        let c = index * 4
                        canvas[out] = colors[c]
                        canvas[out + 1] = colors[c + 1]
                        canvas[out + 2] = colors[c + 2]
                        canvas[out + 3] = 255
                    }
                    out += 4
                }
            }
        }
    }

    /// Applies the current frame's disposal, leaving the canvas ready for the next frame.
    mutating func dispose() {
        let rowBytes = (frameRect.x1 - frameRect.x0) * 4
        guard rowBytes > 0 else { return }
        switch disposal {
        case .keep:
            break
        case .clear:
            for y in frameRect.y0..<frameRect.y1 {
                let start = (y * width + frameRect.x0) * 4
                rgba.replaceSubrange(start..<start + rowBytes, with: repeatElement(0, count: rowBytes))
            }
        case .restorePrevious:
            for (index, y) in (frameRect.y0..<frameRect.y1).enumerated() {
                let start = (y * width + frameRect.x0) * 4
                let from = index * rowBytes
                rgba.replaceSubrange(start..<start + rowBytes, with: savedArea[from..<from + rowBytes])
            }
        }
        savedArea = []
        disposal = .keep
    }
}

extension CanvasTransparency.Disposal {
    /// A GIF graphic control block's 3-bit field: 0 (unspecified) and 1 (do not dispose)
    /// keep the frame; 2 clears its area; 3 (and 4, which early Netscape documents used
    /// for it) restores what was there before. 5–7 are undefined and kept.
    init(gifValue: Int) {
        switch gifValue {
        case 2: self = .clear
        case 3, 4: self = .restorePrevious
        default: self = .keep
        }
    }
}
