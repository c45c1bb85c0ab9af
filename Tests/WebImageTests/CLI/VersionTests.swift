import Foundation
import Testing
@testable import WebImage

/// `webimage --version` and ``LinkedLibrary``: a bug report must carry our version and the
/// version of every image library the build uses.
@Suite struct VersionTests {
    static let libraryNames = ["libjpeg-turbo", "libpng", "giflib", "libwebp", "libavif", "libheif", "libtiff", "libjxl", "lcms2"]

    @Test func everyImageLibraryReportsANumberedVersion() {
        let libraries = LinkedLibrary.all
        #expect(libraries.map(\.name) == Self.libraryNames)
        for library in libraries {
            // "2.1.5", "1.6.39", "0.11.1 (dav1d ...)": a dotted number first, whatever follows.
            let number = library.version.prefix { $0.isNumber || $0 == "." }
            #expect(number.split(separator: ".").count >= 2, "\(library.name) reports \(library.version)")
        }
    }

    @Test func versionPrintsOursFirstThenEachLibrary() throws {
        let result = try WebImageCommand.run("--version")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "webimage \(WebImageVersion.current)")
        for name in Self.libraryNames {
            #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name + " ") }, "no \(name) line in \(lines)")
        }
        #expect(lines.count == Self.libraryNames.count + 1)
    }

    @Test func ourVersionIsSemantic() {
        let parts = WebImageVersion.current.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil })
    }
}
