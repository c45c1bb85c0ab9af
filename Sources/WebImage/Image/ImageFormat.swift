import Foundation

/// The container or codec format of encoded image bytes.
///
/// Formats are recognised from their magic bytes with ``init(sniffing:)``, never from a file
/// name or a server's `Content-Type`, which are often wrong. The cases follow SDWebImage's
/// `SDImageFormat`, plus AVIF and JPEG XL.
///
/// ```swift
/// let format = ImageFormat(sniffing: data)
/// if format == .undefined { throw WebImageError.badImageData("not an image") }
/// ```
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    /// JPEG (JFIF/EXIF), baseline or progressive; decoded and encoded with libjpeg-turbo.
    case jpeg
    /// PNG, and animated PNG (APNG); decoded and encoded with libpng.
    case png
    /// GIF 87a/89a, still or animated; decoded with giflib, encoded by our own quantiser.
    case gif
    /// WebP, lossy or lossless, still or animated; libwebp.
    case webp
    /// HEIC: HEIF holding HEVC images (a phone camera's photos); decoded with libheif.
    case heic
    /// HEIF with another codec or the generic brands (`mif1`, `msf1`) without AVIF among
    /// the compatible brands; libheif.
    case heif
    /// AVIF: HEIF holding AV1 images; libavif (encoded when libavif has an encoder).
    case avif
    /// TIFF; libtiff (the first page).
    case tiff
    /// Windows BMP; decoded and encoded by our own code.
    case bmp
    /// SVG: rendered as vectors with librsvg (loaded on first use); never encoded.
    case svg
    /// PDF: one page rendered with poppler (loaded on first use); never encoded.
    case pdf
    /// JPEG XL (bare codestream or ISO BMFF container), still or animated; libjxl.
    case jpegXL
    /// Not a format this library recognises: what sniffing returns for anything else.
    case undefined

    /// Detects the format from the first bytes of `data` (SDWebImage's rules, with AVIF's
    /// `ftypavif`/`ftypavis` brands, a generic HEIF listing AVIF as compatible, and JPEG
    /// XL's codestream and container signatures).
    /// Returns ``undefined`` when nothing matches.
    public init(sniffing data: Data) {
        let head = [UInt8](data.prefix(32))
        guard let first = head.first else { self = .undefined; return }
        func matches(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        switch first {
        case 0xFF:
            // JPEG XL's bare codestream starts FF 0A; JPEG is FF D8 FF.
            if matches([0xFF, 0x0A]) { self = .jpegXL }
            else if matches([0xFF, 0xD8, 0xFF]) { self = .jpeg }
            else { self = .undefined }
        case 0x89:
            self = matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) ? .png : .undefined
        case 0x47:
            self = matches(Array("GIF8".utf8)) ? .gif : .undefined
        case 0x49, 0x4D:
            self = matches([0x49, 0x49, 0x2A, 0x00]) || matches([0x4D, 0x4D, 0x00, 0x2A]) ? .tiff : .undefined
        case 0x42:
            self = matches(Array("BM".utf8)) ? .bmp : .undefined
        case 0x52:
            self = matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) ? .webp : .undefined
        case 0x25:
            self = matches(Array("%PDF".utf8)) ? .pdf : .undefined
        case 0x00:
            if matches([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
                self = .jpegXL
            } else if matches(Array("ftyp".utf8), at: 4), head.count >= 12 {
                self = ImageFormat(isoFileType: data)
            } else {
                self = .undefined
            }
        case 0x3C:
            self = ImageFormat.looksLikeSVG(data) ? .svg : .undefined
        default:
            self = .undefined
        }
    }

    /// Maps an ISO base media file's `ftyp` box to a format: its major brand, as
    /// SDWebImage does, except that a file with a generic major brand (`mif1`, `msf1`: "some
    /// HEIF") listing `avif` or `avis` among its compatible brands is AVIF, which is what
    /// libavif and browsers decode it as; sniffing and the coder that decodes the file
    /// then name the same format.
    private init(isoFileType data: Data) {
        let box = [UInt8](data.prefix(Self.fileTypeBoxReadLimit))
        func brand(at offset: Int) -> String { String(decoding: box[offset..<offset + 4], as: UTF8.self) }
        switch brand(at: 8) {
        case "heic", "heix", "hevc", "hevx", "heim", "heis":
            self = .heic
        case "avif", "avis":
            self = .avif
        case "mif1", "msf1":
            // The box's own size bounds the compatible brands (after the 4-byte minor
            // version at 12); a size that lies is cut to the bytes at hand.
            let declared = box[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let end = min(declared, box.count)
            let compatible = stride(from: 16, to: end - 3, by: 4).map(brand(at:))
            self = compatible.contains { $0 == "avif" || $0 == "avis" } ? .avif : .heif
        default:
            self = .undefined
        }
    }

    /// How much of an `ftyp` box sniffing reads: room for 58 compatible brands, far more
    /// than any encoder writes, and a bound however large the box says it is.
    private static let fileTypeBoxReadLimit = 256

    /// SDWebImage looks for `<svg` near the end of the text; we look at the first and last
    /// kilobytes so a long prologue or comment does not hide it.
    private static func looksLikeSVG(_ data: Data) -> Bool {
        let marker = Array("<svg".utf8)
        func contains(_ slice: Data) -> Bool {
            let bytes = [UInt8](slice)
            guard bytes.count >= marker.count else { return false }
            for start in 0...(bytes.count - marker.count) where bytes[start] == 0x3C {
                if Array(bytes[start..<start + marker.count]) == marker { return true }
            }
            return false
        }
        return contains(data.prefix(1024)) || contains(data.suffix(1024))
    }

    /// The usual file-name extension, without a dot (`"jpg"`, `"png"`), or `nil` for ``undefined``.
    public var fileExtension: String? {
        switch self {
        case .jpeg: "jpg"
        case .jpegXL: "jxl"
        case .undefined: nil
        default: rawValue
        }
    }

    /// The MIME type servers use for this format.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        case .jpegXL: "image/jxl"
        case .undefined: "application/octet-stream"
        }
    }
}

extension ImageFormat {
    /// The formats whose encoders take ``ImageCoderOptions/compressionQuality`` as a lossy
    /// level (imgproxy's `SupportsQuality`). Not GIF, to whose encoder a quality is a
    /// palette size (80 % kept 205 colours and dithered), nor the lossless formats. The
    /// image server and the command line apply their quality settings to these only.
    package static let qualityFormats: Set<ImageFormat> = [.jpeg, .webp, .avif, .heic, .heif, .jpegXL, .tiff]
}
