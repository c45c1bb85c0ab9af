import Foundation
import Testing
@testable import WebImage

@Suite("DiskCache file names")
struct DiskCacheFileNameTests {
    // Expected hashes from Python's hashlib.md5 over the key's UTF-8 bytes.

    @Test func urlKeyWithQueryKeepsOnlyThePathExtension() {
        #expect(DiskCache.fileName(forKey: "https://a.com/b.jpg?w=2") == "5dbf08dba455a670c7d70df9ddebf693.jpg")
    }

    @Test func urlWithoutExtensionGivesNoExtension() {
        #expect(DiskCache.fileName(forKey: "https://a.com/b") == "19de0ae32445db54cf8aa2030ba9a15c")
    }

    @Test func emptyKeyHashesTheEmptyString() {
        #expect(DiskCache.fileName(forKey: "") == "d41d8cd98f00b204e9800998ecf8427e")
    }

    @Test func extensionLongerThan212BytesIsDropped() {
        #expect(DiskCache.maximumExtensionLength == 212)
        let long = String(repeating: "x", count: 300)
        let name = DiskCache.fileName(forKey: "https://a.com/b.\(long)")
        #expect(name.count == 32)
        #expect(!name.contains("."))
        let longest = String(repeating: "y", count: 212)
        #expect(DiskCache.fileName(forKey: "https://a.com/b.\(longest)").hasSuffix("." + longest))
        let tooLong = String(repeating: "y", count: 213)
        #expect(!DiskCache.fileName(forKey: "https://a.com/b.\(tooLong)").contains("."))
        // Bytes, not characters: 106 two-byte characters fit, 107 do not.
        #expect(DiskCache.fileName(forKey: "/img/b." + String(repeating: "é", count: 106)).contains("."))
        #expect(!DiskCache.fileName(forKey: "/img/b." + String(repeating: "é", count: 107)).contains("."))
    }

    @Test func colonsAreStrippedFromTheExtension() {
        #expect(DiskCache.fileName(forKey: "https://a.com/b.p:n:g") == "533d57ac754e3b81069eb3a7eaf8e367.png")
    }

    @Test func plainFilePathKeysUseTheirExtension() {
        #expect(DiskCache.pathExtension(ofKey: "/var/images/photo.webp") == "webp")
        #expect(DiskCache.pathExtension(ofKey: "photo.gif#frag") == "gif")
        #expect(DiskCache.pathExtension(ofKey: "no-extension-here") == "")
    }

    @Test func defaultDirectoryFollowsXDGCacheHome() {
        let home = URL(fileURLWithPath: "/home/someone", isDirectory: true)
        let xdg = DiskCache.defaultBaseDirectory(environment: ["XDG_CACHE_HOME": "/srv/cache"], home: home)
        #expect(xdg.path == "/srv/cache/swift-web-image")
        let fallback = DiskCache.defaultBaseDirectory(environment: [:], home: home)
        #expect(fallback.path == "/home/someone/.cache/swift-web-image")
        // A relative XDG_CACHE_HOME is invalid by the specification and ignored.
        let relative = DiskCache.defaultBaseDirectory(environment: ["XDG_CACHE_HOME": "cache"], home: home)
        #expect(relative.path == "/home/someone/.cache/swift-web-image")
        #expect(DiskCache.defaultDirectory(namespace: "ns").lastPathComponent == "ns")
    }

    /// A namespace is one folder inside the base, whatever it holds: `..` used to put the
    /// cache in the base's parent, and `a/b` in a folder of another namespace.
    @Test(arguments: [
        ("default", "default"), ("avatars 2", "avatars 2"), ("é.v1", "é.v1"), ("..", "%2E%2E"), (".", "%2E"),
        ("", "%"), ("a/b", "a%2Fb"), ("../../etc", "..%2F..%2Fetc"), ("50%", "50%25"), ("a\u{0}b", "a%00b"),
    ])
    func namespaceIsOneFolderInsideTheBase(_ namespace: String, _ folder: String) throws {
        #expect(DiskCache.folderName(namespace: namespace) == folder)
        let base = URL(fileURLWithPath: "/srv/cache", isDirectory: true)
        let cache = ImageCache(namespace: namespace, directory: base)
        #expect(cache.diskCache.directory.deletingLastPathComponent().standardizedFileURL.path == "/srv/cache")
        #expect(cache.diskCache.directory.lastPathComponent == folder)
    }
}
