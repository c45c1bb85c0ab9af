/// Reads the primary item's properties from a HEIF file's `meta` box: its `irot`/`imir`
/// transforms as one ``ImageOrientation``, its `ispe` size, and the canvas a grid or
/// overlay item declares in its data.
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

    /// The canvas a `grid` or `iovl` (overlay) primary item declares in its own item data,
    /// or `nil` when the primary item is neither or the boxes cannot be read.
    ///
    /// libheif 1.15 allocates a derived image's canvas from these fields, not from `ispe`,
    /// and checks each side against its limit but never the area, so a 64×64 `ispe` over a
    /// 38854×59523 overlay passed every check and cost a 2.3 GB allocation (Fuzz/README.md,
    /// finding 3). The item data is found through `iloc`: in the file (construction method
    /// 0) or in `idat` (method 1).
    package static func derivedCanvasSize(in bytes: UnsafeRawBufferPointer) -> ImageSize? {
        let reader = Reader(bytes: bytes)
        guard let (children, primary) = primaryItem(reader),
              let iinf = children.first(where: { $0.type == "iinf" }),
              let type = reader.itemType(iinf.payload, item: primary), type == "grid" || type == "iovl",
              let iloc = children.first(where: { $0.type == "iloc" }),
              let location = reader.firstExtent(iloc.payload, item: primary)
        else { return nil }
        // The offset is the file's to choose (up to 2^63 with the base offset): it must
        // name a byte of the file, or of `idat`, before anything is added to it.
        let start: Int
        switch location.constructionMethod {
        case 0:
            guard location.offset < bytes.count else { return nil }
            start = location.offset
        case 1:
            guard let idat = children.first(where: { $0.type == "idat" }), location.offset < idat.payload.count else { return nil }
            start = idat.payload.lowerBound + location.offset
        default:
            return nil
        }
        // grid: version, flags, rows - 1, columns - 1; iovl: version, flags, four 16-bit
        // fill values. Then width and height, 32-bit when flags bit 0 is set.
        guard let flags = reader.u8(start + 1) else { return nil }
        let sizesAt = start + (type == "grid" ? 4 : 10)
        let wide = flags & 1 != 0
        guard let width = wide ? reader.u32(sizesAt) : reader.u16(sizesAt),
              let height = wide ? reader.u32(sizesAt + 4) : reader.u16(sizesAt + 2),
              sizesAt + (wide ? 8 : 4) <= start + location.length else { return nil }
        return ImageSize(width: width, height: height)
    }

    /// Whether any item of the file is AV1-coded (`av01`): the primary image, a grid's
    /// tile, a thumbnail. ``HEIFCoder`` leaves those files alone: libheif would hand the
    /// payload to its dav1d plugin, which leaks its input on damaged data (Fuzz/README.md,
    /// finding 5), and a file that is really AV1 carries the `avif` brand, which sends it
    /// to ``AVIFCoder`` (libavif) instead. `false` when the item list cannot be read.
    package static func hasAV1Item(in bytes: UnsafeRawBufferPointer) -> Bool {
        let reader = Reader(bytes: bytes)
        guard let (children, _) = primaryItem(reader),
              let iinf = children.first(where: { $0.type == "iinf" }),
              let types = reader.itemTypes(iinf.payload)
        else { return false }
        return types.contains { $0.type == "av01" }
    }

    /// How many `meta` boxes the file has at its top level (read up to damaged bytes, as
    /// libheif reads it). ISO BMFF allows one; with several, this reader (which takes the
    /// first) and libheif (which took a later one, finding 7 in Fuzz/README.md) could read
    /// different items, so ``HEIFCoder`` refuses such a file rather than check one item
    /// list and decode another.
    package static func fileLevelMetaBoxCount(in bytes: UnsafeRawBufferPointer) -> Int {
        let reader = Reader(bytes: bytes)
        return reader.boxes(in: 0..<reader.bytes.count, upToDamage: true)?.count { $0.type == "meta" } ?? 0
    }

    /// The property boxes associated with the primary item, in association order.
    private static func primaryItemProperties(_ reader: Reader) -> [Box]? {
        guard let (metaChildren, primary) = primaryItem(reader),
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

    /// The boxes inside the file's `meta` box and the primary item's ID (from `pitm`), or
    /// `nil`. The top level is read up to damaged bytes, as libheif reads it.
    private static func primaryItem(_ reader: Reader) -> (metaChildren: [Box], primary: Int)? {
        guard let meta = reader.boxes(in: 0..<reader.bytes.count, upToDamage: true)?.first(where: { $0.type == "meta" }),
              meta.payload.count >= 4,
              let children = reader.boxes(in: meta.payload.lowerBound + 4..<meta.payload.upperBound),
              let pitm = children.first(where: { $0.type == "pitm" }),
              let primary = reader.primaryItem(pitm.payload)
        else { return nil }
        return (children, primary)
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

        /// The boxes filling `range`, or `nil` when one overruns it. With `upToDamage`, the
        /// boxes before the first that overruns instead: how the file's top level is read,
        /// since libheif reads a `meta` box followed by damaged bytes, and so must we.
        func boxes(in range: Range<Int>, upToDamage: Bool = false) -> [Box]? {
            var result: [Box] = []
            var position = range.lowerBound
            while position + 8 <= range.upperBound {
                guard let size32 = u32(position) else { return nil }
                let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
                var header = 8
                var size = size32
                if size32 == 1 {
                    guard let high = u32(position + 8), let low = u32(position + 12), high < 1 << 30 else {
                        return upToDamage ? result : nil
                    }
                    size = high << 32 | low
                    header = 16
                } else if size32 == 0 {
                    size = range.upperBound - position
                }
                guard size >= header, size <= range.upperBound - position else { return upToDamage ? result : nil }
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

        /// The four-character type `item` has in an `iinf` payload.
        func itemType(_ payload: Range<Int>, item: Int) -> String? {
            itemTypes(payload)?.first { $0.id == item }?.type
        }

        /// Every item's ID and four-character type in an `iinf` payload (its `infe` boxes
        /// of version 2 or 3; earlier versions name no type and are left out).
        func itemTypes(_ payload: Range<Int>) -> [(id: Int, type: String)]? {
            guard let version = u8(payload.lowerBound) else { return nil }
            let entriesAt = payload.lowerBound + (version == 0 ? 6 : 8)
            guard entriesAt <= payload.upperBound, let entries = boxes(in: entriesAt..<payload.upperBound) else { return nil }
            var types: [(id: Int, type: String)] = []
            for infe in entries where infe.type == "infe" {
                guard let infeVersion = u8(infe.payload.lowerBound), infeVersion >= 2 else { continue }
                let idAt = infe.payload.lowerBound + 4
                let typeAt = idAt + (infeVersion == 2 ? 2 : 4) + 2
                guard let id = infeVersion == 2 ? u16(idAt) : u32(idAt), typeAt + 4 <= infe.payload.upperBound else { continue }
                types.append((id, String(decoding: bytes[typeAt..<typeAt + 4], as: UTF8.self)))
            }
            return types
        }

        /// Where `item`'s data starts according to an `iloc` payload: its first extent's
        /// offset (base offset added) and length, and the construction method.
        func firstExtent(_ payload: Range<Int>, item: Int) -> (offset: Int, length: Int, constructionMethod: Int)? {
            guard let version = u8(payload.lowerBound), version <= 2,
                  let sizes = u8(payload.lowerBound + 4), let baseSizes = u8(payload.lowerBound + 5) else { return nil }
            let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseOffsetSize = Int(baseSizes >> 4)
            let indexSize = version == 0 ? 0 : Int(baseSizes & 15)
            var position = payload.lowerBound + 6
            guard let count = version < 2 ? u16(position) : u32(position) else { return nil }
            position += version < 2 ? 2 : 4
            for _ in 0..<count {
                guard let id = version < 2 ? u16(position) : u32(position) else { return nil }
                position += version < 2 ? 2 : 4
                var method = 0
                if version > 0 {
                    guard let value = u16(position) else { return nil }
                    method = value & 15
                    position += 2
                }
                position += 2  // data_reference_index
                guard let base = uint(position, size: baseOffsetSize), let extents = u16(position + baseOffsetSize) else { return nil }
                position += baseOffsetSize + 2
                // The extents must fit in what is left of the box: a count of 65,535 with
                // every field size 0 reads nothing, and looping over it for each of tens of
                // thousands of items would take billions of steps.
                let extentSize = indexSize + offsetSize + lengthSize
                guard extents * extentSize <= payload.upperBound - min(position, payload.upperBound) else { return nil }
                var first: (offset: Int, length: Int)?
                if extents > 0 {
                    position += indexSize
                    guard let offset = uint(position, size: offsetSize), let length = uint(position + offsetSize, size: lengthSize) else { return nil }
                    first = (offset, length)
                    position += extents * extentSize - indexSize
                }
                guard position <= payload.upperBound else { return nil }
                if id == item, let first {
                    let (start, overflow) = base.addingReportingOverflow(first.offset)
                    return overflow ? nil : (start, first.length, method)
                }
            }
            return nil
        }

        /// An unsigned big-endian field of 0, 4 or 8 bytes (`iloc`'s sizes); an 8-byte value
        /// beyond 2^62 is treated as unreadable.
        func uint(_ at: Int, size: Int) -> Int? {
            switch size {
            case 0: return 0
            case 4: return u32(at)
            case 8:
                guard let high = u32(at), let low = u32(at + 4), high < 1 << 30 else { return nil }
                return high << 32 | low
            default: return nil
            }
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
