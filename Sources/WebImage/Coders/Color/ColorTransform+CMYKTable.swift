import CLCMS

extension ColorTransform {
    /// The conversion of CMYK pixels through a CMYK profile, as a table: Little CMS's
    /// transform sampled once on a 17-node grid per ink, then each pixel interpolated from
    /// its cell, tetrahedrally in C, M and Y and linearly in K, in integers.
    ///
    /// Little CMS's own 8-bit CMYK transform does the same (it precomputes a 17-node grid
    /// and evaluates it the same way), but through a general pipeline that costs about
    /// 37 ns a pixel: a 12 MP print file took four times its JPEG decode to convert. The
    /// nodes here are Little CMS's own (`_cmsQuantizeVal`'s positions, sampled in 16 bits),
    /// so the result stays within a level or two of its (``CMYKTableTests``). Immutable:
    /// thread-safe.
    struct CMYKTable: Sendable {
        /// Nodes per ink.
        static let nodes = 17

        /// R, G, B (16-bit) of each node; node (c, m, y, k) at
        /// `((k * 17 + c) * 17 + m) * 17 + y`, three samples each.
        private let samples: [UInt16]
        /// Whether the pixels store ink inverted (Adobe's JPEG): 0 is full ink.
        private let inverted: Bool

        /// Samples `transform` (16-bit CMYK, 0 = no ink, to 16-bit RGB) at every node.
        init(sampling transform: cmsHTRANSFORM, inverted: Bool) {
            let n = Self.nodes
            // Little CMS's node positions: i × 65535 / 16, rounded.
            let levels = (0..<n).map { UInt16((Double($0) * 65535 / Double(n - 1)).rounded()) }
            var inks = [UInt16]()
            inks.reserveCapacity(n * n * n * n * 4)
            for k in levels {
                for c in levels {
                    for m in levels {
                        for y in levels {
                            inks.append(c)
                            inks.append(m)
                            inks.append(y)
                            inks.append(k)
                        }
                    }
                }
            }
            var sampled = [UInt16](repeating: 0, count: n * n * n * n * 3)
            cmsDoTransform(transform, inks, &sampled, cmsUInt32Number(n * n * n * n))
            samples = sampled
            self.inverted = inverted
        }

        /// The cell of an 8-bit ink value and its distance into it, in 255ths: the value's
        /// position on the grid is `value × 16 / 255` (255 is the far end of the last cell).
        @inline(__always)
        private static func cell(_ value: UInt8) -> (index: Int, offset: Int) {
            let position = Int(value) * (nodes - 1)
            let index = min(position / 255, nodes - 2)
            return (index, position - index * 255)
        }

        /// Converts CMYK (four bytes a pixel) to opaque RGBA in place.
        func convert(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
            guard let p = pixels.baseAddress else { return }
            let flip: UInt8 = inverted ? 255 : 0
            samples.withUnsafeBufferPointer { table in
                guard let t = table.baseAddress else { return }
                // Strides in samples (three per node).
                let sy = 3, sm = 3 * Self.nodes, sc = sm * Self.nodes, sk = sc * Self.nodes
                let full = 255
                var i = 0
                while i + 3 < pixels.count {
                    let (c, fc) = Self.cell(p[i] ^ flip), (m, fm) = Self.cell(p[i + 1] ^ flip)
                    let (y, fy) = Self.cell(p[i + 2] ^ flip), (k, fk) = Self.cell(p[i + 3] ^ flip)
                    // The tetrahedron of the cell holding the point: from the cell's first
                    // corner, step along the inks in order of their offsets.
                    let v1: Int, v2: Int, w0: Int, w1: Int, w2: Int, w3: Int
                    if fc >= fm {
                        if fm >= fy {
                            (v1, v2, w0, w1, w2, w3) = (sc, sc + sm, full - fc, fc - fm, fm - fy, fy)
                        } else if fc >= fy {
                            (v1, v2, w0, w1, w2, w3) = (sc, sc + sy, full - fc, fc - fy, fy - fm, fm)
                        } else {
                            (v1, v2, w0, w1, w2, w3) = (sy, sc + sy, full - fy, fy - fc, fc - fm, fm)
                        }
                    } else if fy >= fm {
                        (v1, v2, w0, w1, w2, w3) = (sy, sm + sy, full - fy, fy - fm, fm - fc, fc)
                    } else if fy >= fc {
                        (v1, v2, w0, w1, w2, w3) = (sm, sm + sy, full - fm, fm - fy, fy - fc, fc)
                    } else {
                        (v1, v2, w0, w1, w2, w3) = (sm, sm + sc, full - fm, fm - fc, fc - fy, fy)
                    }
                    let v3 = sc + sm + sy
                    let base = k * sk + c * sc + m * sm + y * sy
                    for channel in 0..<3 {
                        let b = t + base + channel
                        let low = w0 * Int(b[0]) + w1 * Int(b[v1]) + w2 * Int(b[v2]) + w3 * Int(b[v3])
                        // K is the slowest axis: the same tetrahedron one K node up.
                        let high = fk == 0 ? low
                            : w0 * Int(b[sk]) + w1 * Int(b[sk + v1]) + w2 * Int(b[sk + v2]) + w3 * Int(b[sk + v3])
                        // Weights sum to 255 on each axis: 255² × 65535 at most, to 8 bits.
                        let blended = low * (full - fk) + high * fk
                        p[i + channel] = UInt8(truncatingIfNeeded: (blended + 65025 * 257 / 2) / (65025 * 257))
                    }
                    p[i + 3] = 255
                    i += 4
                }
            }
        }
    }
}
