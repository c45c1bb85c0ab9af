/// Reads the primary item's properties from a HEIF file's `meta` box: its `irot`/`imir`
/// transforms as one ``ImageOrientation``, and its `ispe` size.
///
/// libheif 1.15 applies the transforms while decoding but has no call that says which ones
/// it applied, and it reports an oversized image only as a generic security-limit error, so
/// ``HEIFCoder`` walks the boxes itself: `pitm` names the primary item, `ipma` lists its
/// properties by index into `ipco`. Every length is checked against the bytes present;
/// anything malformed yields `nil`. Pure and thread-safe.
///
/// ```swift
/// let orientation = data.withUnsafeBytes { HEIFPropertyReader.orientation(in: $0) } ?? .up
/// ```
package enum HEIFPropertyReader {
    /// The primary item's transforms as an orientation (``ImageOrientation/up`` when it has
    /// none), or `nil` when the boxes cannot be read.
    package static func orientation(in bytes: UnsafeRawBufferPointer) -> ImageOrientation? {
        let reader = Reader(bytes: bytes)
        guard let properties = primaryItemProperties(reader) else { return nil }
        // Compose in association order, as libheif applies them. The state means "rotate
        // `rotation` quarter turns anti-clockwise, then mirror by `mirror`"; a rotation after
        // a mirror turns the other way (M∘R(a) = R(-a)∘M), and two different mirrors make a
        // half turn.
        var rotation = 0
        var mirror: Int?
        for property in properties {
            guard let value = reader.u8(property.payload.lowerBound), !property.payload.isEmpty else { continue }
            switch property.type {
            case "irot":
                let angle = Int(value & 3)
                rotation += mirror == nil ? angle : -angle
            case "imir":
                let mode = Int(value & 1)
                if mirror == nil {
                    mirror = mode
                } else if mirror == mode {
                    mirror = nil
                } else {
                    mirror = nil
                    rotation += 2
                }
            default:
                continue
            }
        }
        return HEIFOrientation.orientation(rotation: rotation, mirror: mirror)
    }

    /// The primary item's `ispe` size as stored (before crop and rotation), or `nil`.
    package static func size(in bytes: UnsafeRawBufferPointer) -> ImageSize? {
        let reader = Reader(bytes: bytes)
        guard let ispe = primaryItemProperties(reader)?.first(where: { $0.type == "ispe" }),
              ispe.payload.count >= 12,
              let width = reader.u32(ispe.payload.lowerBound + 4),
              let height = reader.u32(ispe.payload.lowerBound + 8) else { return nil }
        return ImageSize(width: width, height: height)
    }

    /// The property boxes associated with the primary item, in association order.
    private static func primaryItemProperties(_ reader: Reader) -> [Box]? {
        guard let meta = reader.boxes(in: 0..<reader.bytes.count)?.first(where: { $0.type == "meta" }),
              meta.payload.count >= 4,
              let metaChildren = reader.boxes(in: meta.payload.lowerBound + 4..<meta.payload.upperBound),
              let pitm = metaChildren.first(where: { $0.type == "pitm" }),
              let primary = reader.primaryItem(pitm.payload),
              let iprp = metaChildren.first(where: { $0.type == "iprp" }),
              let iprpChildren = reader.boxes(in: iprp.payload),
              let ipco = iprpChildren.first(where: { $0.type == "ipco" }),
              let properties = reader.boxes(in: ipco.payload)
        else { return nil }
        var associated: [Box] = []
        for ipma in iprpChildren where ipma.type == "ipma" {
            guard let indices = reader.associations(ipma.payload, item: primary) else { return nil }
            for index in indices where index > 0 {
                guard index <= properties.count else { return nil }
                associated.append(properties[index - 1])
            }
        }
        return associated
    }

    /// One ISO BMFF box: its four-character type and the byte range of its payload.
    struct Box {
        let type: String
        let payload: Range<Int>
    }

    /// Bounds-checked big-endian reads over the file's bytes.
    struct Reader {
        let bytes: UnsafeRawBufferPointer

        func u8(_ at: Int) -> UInt8? {
            at >= 0 && at < bytes.count ? bytes[at] : nil
        }

        func u16(_ at: Int) -> Int? {
            guard let a = u8(at), let b = u8(at + 1) else { return nil }
            return Int(a) << 8 | Int(b)
        }

        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return a << 16 | b
        }

        /// The boxes filling `range`, or `nil` when one overruns it.
        func boxes(in range: Range<Int>) -> [Box]? {
            var result: [Box] = []
            var position = range.lowerBound
            while position + 8 <= range.upperBound {
                guard let size32 = u32(position) else { return nil }
                let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
                var header = 8
                var size = size32
                if size32 == 1 {
                    guard let high = u32(position + 8), let low = u32(position + 12), high < 1 << 30 else { return nil }
                    size = high << 32 | low
                    header = 16
                } else if size32 == 0 {
                    size = range.upperBound - position
                }
                guard size >= header, size <= range.upperBound - position else { return nil }
                result.append(Box(type: type, payload: position + header..<position + size))
                position += size
            }
            return result
        }

        /// The item ID in a `pitm` payload (version 0: 16 bits, otherwise 32).
        func primaryItem(_ payload: Range<Int>) -> Int? {
            guard let version = u8(payload.lowerBound) else { return nil }
            let at = payload.lowerBound + 4
            let id = version == 0 ? u16(at) : u32(at)
            guard let id, at + (version == 0 ? 2 : 4) <= payload.upperBound else { return nil }
            return id
        }

        /// The 1-based `ipco` indices an `ipma` payload associates with `item`, in order.
        func associations(_ payload: Range<Int>, item: Int) -> [Int]? {
            guard let version = u8(payload.lowerBound), let flags = u32(payload.lowerBound),
                  let entryCount = u32(payload.lowerBound + 4) else { return nil }
            let wideIndex = flags & 1 != 0
            var position = payload.lowerBound + 8
            var found: [Int] = []
            for _ in 0..<entryCount {
                guard let id = version < 1 ? u16(position) : u32(position) else { return nil }
                position += version < 1 ? 2 : 4
                guard let count = u8(position) else { return nil }
                position += 1
                for _ in 0..<count {
                    let index: Int
                    if wideIndex {
                        guard let value = u16(position) else { return nil }
                        index = value & 0x7FFF
                        position += 2
                    } else {
                        guard let value = u8(position) else { return nil }
                        index = Int(value & 0x7F)
                        position += 1
                    }
                    if id == item { found.append(index) }
                }
                guard position <= payload.upperBound else { return nil }
            }
            return found
        }
    }
}
