extension GIFEncoder {
    /// Decides how each frame of an animation is written so that, composited the way GIF
    /// decoders do, it shows exactly the palette indices it was given.
    ///
    /// Every frame is compared with what is on screen before it (the previous frame after
    /// that frame's disposal) and only the bounding rectangle of the differences is
    /// written; inside it, a pixel that is already right is written as the transparent
    /// entry (GIF draws nothing for it), which is lossless in palette terms and gives
    /// LZW long runs. Frames keep what they drew (disposal 1), except when the next frame
    /// has a transparent pixel where the screen shows a colour: drawing cannot make a pixel
    /// transparent again, so the frame before is given disposal 2 (clear its rectangle to
    /// transparent) and its rectangle is grown to cover those pixels.
    ///
    /// Because a frame's disposal depends on the frame after it, frames come out one
    /// ``add(_:delay:)`` late; ``finish()`` gives the last. A value owned by one encode.
    struct FramePlanner {
        /// A frame rectangle on the canvas (half-open).
        struct Rect: Equatable {
            var minX: Int, minY: Int, maxX: Int, maxY: Int
            var width: Int { maxX - minX }
            var height: Int { maxY - minY }

            func union(_ other: Rect) -> Rect {
                Rect(minX: min(minX, other.minX), minY: min(minY, other.minY),
                     maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
            }
        }

        /// A frame ready to write.
        struct Frame {
            let rect: Rect
            /// `rect.width × rect.height` indices, row by row.
            let indices: [UInt8]
            /// 1 (keep) or 2 (clear the rectangle to transparent).
            let disposal: Int
            /// Hundredths of a second.
            let delay: Int
            /// The transparent entry when the frame uses it or is cleared on disposal, else `nil`.
            let transparentIndex: Int?
        }

        private struct Pending {
            /// The whole canvas as it shows once this frame is drawn.
            var indices: [UInt8]
            /// The canvas before it is drawn; `nil` for the first frame (nothing drawn yet).
            var before: [UInt8]?
            var rect: Rect
            var disposal = 1
            var delay: Int
        }

        private let width: Int
        private let height: Int
        private let transparent: UInt8?
        private var pending: Pending?

        /// A planner for a `width × height` canvas whose palette has `transparentIndex`
        /// (or no transparent entry).
        init(width: Int, height: Int, transparentIndex: UInt8?) {
            self.width = width
            self.height = height
            self.transparent = transparentIndex
        }

        /// Gives pixels whose source colour did not change since the previous frame the
        /// index they had there. Dithering alone would give them new values whenever the
        /// error arriving from changed neighbours differs, and the "unchanged" area would
        /// shimmer and stop compressing.
        func keepUnchangedPixels(_ indices: inout [UInt8], source: PixelBuffer, previousSource: PixelBuffer) {
            guard let previous = pending?.indices else { return }
            source.bytes.withUnsafeBufferPointer { now in
                previousSource.bytes.withUnsafeBufferPointer { before in
                    for pixel in 0..<indices.count {
                        let i = pixel * 4
                        let bothTransparent = now[i + 3] < ColorQuantizer.alphaThreshold
                            && before[i + 3] < ColorQuantizer.alphaThreshold
                        if bothTransparent || (now[i] == before[i] && now[i + 1] == before[i + 1]
                            && now[i + 2] == before[i + 2] && now[i + 3] == before[i + 3]) {
                            indices[pixel] = previous[pixel]
                        }
                    }
                }
            }
        }

        /// Takes the next frame's canvas of indices; returns the frame before it, now that
        /// its disposal is known (`nil` for the first call).
        mutating func add(_ indices: [UInt8], delay: Int) -> Frame? {
            guard var previous = pending else {
                pending = Pending(indices: indices, before: nil,
                                  rect: Rect(minX: 0, minY: 0, maxX: width, maxY: height), delay: delay)
                return nil
            }
            var before = previous.indices
            if let transparent,
               let cleared = bounds(where: { indices[$0] == transparent && before[$0] != transparent }) {
                previous.disposal = 2
                previous.rect = previous.rect.union(cleared)
                for y in previous.rect.minY..<previous.rect.maxY {
                    for x in previous.rect.minX..<previous.rect.maxX { before[y * width + x] = transparent }
                }
            }
            // A frame identical to the screen still needs one pixel to be a frame.
            let changed = bounds(where: { indices[$0] != before[$0] }) ?? Rect(minX: 0, minY: 0, maxX: 1, maxY: 1)
            pending = Pending(indices: indices, before: before, rect: changed, delay: delay)
            return cropped(previous)
        }

        /// The last frame.
        mutating func finish() -> Frame? {
            defer { pending = nil }
            return pending.map(cropped)
        }

        /// The bounding rectangle of the pixels (by offset) where `differs` holds.
        private func bounds(where differs: (Int) -> Bool) -> Rect? {
            var found: Rect?
            for y in 0..<height {
                let row = y * width
                guard let first = (0..<width).first(where: { differs(row + $0) }) else { continue }
                let last = (first..<width).last(where: { differs(row + $0) }) ?? first
                let rect = Rect(minX: first, minY: y, maxX: last + 1, maxY: y + 1)
                found = found.map { $0.union(rect) } ?? rect
            }
            return found
        }

        /// The frame's rectangle, with pixels already on screen made transparent.
        private func cropped(_ frame: Pending) -> Frame {
            var out = [UInt8]()
            out.reserveCapacity(frame.rect.width * frame.rect.height)
            var usesTransparent = false
            for y in frame.rect.minY..<frame.rect.maxY {
                for x in frame.rect.minX..<frame.rect.maxX {
                    let pixel = y * width + x
                    var value = frame.indices[pixel]
                    if let transparent, let before = frame.before, before[pixel] == value { value = transparent }
                    if value == transparent { usesTransparent = true }
                    out.append(value)
                }
            }
            // A frame cleared on disposal declares the entry too: decoders such as Pillow
            // clear to the frame's transparent colour, and without one to the background.
            let declares = usesTransparent || frame.disposal == 2
            return Frame(rect: frame.rect, indices: out, disposal: frame.disposal, delay: frame.delay,
                         transparentIndex: declares ? transparent.map(Int.init) : nil)
        }
    }
}
