import Foundation
@testable import WebImage

/// SDWebImage's test images, found beside the repository (`../shared/corpus/sdwebimage`)
/// or where `WEBIMAGE_CORPUS` points.
enum Corpus {
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()   // Helpers
            .deletingLastPathComponent()   // WebImageTests
            .deletingLastPathComponent()   // Tests
            .deletingLastPathComponent()   // repository root
        return repository.deletingLastPathComponent().appendingPathComponent("shared/corpus/sdwebimage")
    }()

    /// The bytes of a corpus file; fails the test (by throwing) when it is missing.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The test target's bundled fixtures folder.
    static var fixtures: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
    }
}
