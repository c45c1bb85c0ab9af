import Foundation
@testable import WebImage

/// SDWebImage's test images, kept in the repository's `Corpus/sdwebimage` (MIT, see its
/// README), or wherever `WEBIMAGE_CORPUS` points when someone tries another set.
enum Corpus {
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return repositoryRoot.appendingPathComponent("Corpus/sdwebimage")
    }()

    /// The repository this test file was compiled from: the images are read in place rather
    /// than copied into the test bundle, which would copy 7 MB on every build.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // Helpers
        .deletingLastPathComponent()   // WebImageTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // repository root

    /// The bytes of a corpus file; fails the test (by throwing) when it is missing.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The test target's bundled fixtures folder.
    static var fixtures: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
    }
}
