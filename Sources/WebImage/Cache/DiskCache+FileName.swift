import Crypto
import Foundation

extension DiskCache {
    /// The longest path extension kept in a file name: `NAME_MAX` (255) less the 32 hex
    /// digits of the hash and the dot, and less the 10 bytes an entry's hidden sidecar
    /// adds to its name (`.` and `.extended`), so that the sidecar's name fits as well.
    /// Counted in UTF-8 bytes, since Linux limits names in bytes.
    ///
    /// SDWebImage's `SD_MAX_FILE_EXTENSION_LENGTH` is 222, without the sidecar's 10: it
    /// keeps metadata in extended attributes only. With 222, an entry whose extension had
    /// 213 to 222 bytes could be stored but never given extended data where attributes
    /// are refused (the sidecar's `open` failed with `ENAMETOOLONG`).
    public static let maximumExtensionLength = 255 - 32 - 1 - (1 + sidecarSuffix.utf8.count)

    /// The file name for `key`, by SDWebImage's rule: the lowercase hex MD5 of the key's
    /// UTF-8 bytes, then a dot and the key's path extension when it has a usable one.
    ///
    /// The extension is the URL's path extension (so the query and fragment are ignored),
    /// or the string's own when the key is not a URL; `:`, NUL and `/` are stripped from it
    /// (the last because it cannot appear in a Linux file name); it is dropped when longer
    /// than ``maximumExtensionLength``.
    ///
    /// ```swift
    /// DiskCache.fileName(forKey: "https://a.com/b.jpg?w=2")  // "<md5>.jpg"
    /// ```
    public static func fileName(forKey key: String) -> String {
        let digest = Insecure.MD5.hash(data: Array(key.utf8))
        var name = String(hex: digest)
        let fileExtension = pathExtension(ofKey: key)
        if !fileExtension.isEmpty {
            name += "." + fileExtension
        }
        return name
    }

    /// Whether `name` is one ``fileName(forKey:)`` can give: 32 lowercase hex digits, then
    /// optionally a dot and an extension. Only such files are entries: a cleanup, a trim,
    /// `removeAllData` and the totals leave every other file in the folder alone (a folder
    /// shared with other files, or a namespace that names a folder of the user's, lost
    /// them to the first trim).
    static func isEntryName(_ name: some StringProtocol) -> Bool {
        let utf8 = name.utf8
        guard utf8.count >= 32 else { return false }
        let digits = utf8.prefix(32)
        guard digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return false }
        return utf8.count == 32 || (utf8.dropFirst(32).first == UInt8(ascii: ".") && utf8.count > 33)
    }

    /// Whether `name` is an entry's hidden sidecar (`.` + the entry's name + `.extended`).
    static func isSidecarName(_ name: String) -> Bool {
        entryName(ofSidecar: name) != nil
    }

    /// The hidden sidecar's name of entry `name`.
    static func sidecarName(ofEntry name: String) -> String {
        "." + name + sidecarSuffix
    }

    /// The entry whose sidecar `name` is; `nil` for a name that is not a sidecar's.
    static func entryName(ofSidecar name: String) -> String? {
        guard name.hasPrefix("."), name.hasSuffix(sidecarSuffix) else { return nil }
        let entry = name.dropFirst().dropLast(sidecarSuffix.count)
        return isEntryName(entry) ? String(entry) : nil
    }

    /// The sanitised path extension used in ``fileName(forKey:)``; empty when there is none.
    public static func pathExtension(ofKey key: String) -> String {
        let raw: String
        if let url = URL(string: key) {
            raw = url.pathExtension
        } else {
            raw = (key as NSString).pathExtension
        }
        let cleaned = String(raw.unicodeScalars.filter { $0 != ":" && $0 != "\0" && $0 != "/" })
        return cleaned.utf8.count > maximumExtensionLength ? "" : cleaned
    }
}
