import Foundation
import Testing
@testable import WebImage

@Suite struct LockedValueTests {
    /// `LockedValue` exists because the thread sanitizer cannot see a bare `Mutex` hand
    /// over (its doc comment, and `scripts/check-tsan-locks.sh`, show why): one bare
    /// `Mutex` in the package brings back false race reports under `make test-tsan`, which
    /// CI does not run. DownloadOperation's request slot was one, added after the last
    /// sanitizer run. So the sources are read here, where every `make test` checks them.
    @Test func everyLockInTheSourcesIsALockedValue() throws {
        let sources = Corpus.repositoryRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent != "LockedValue.swift" }
        #expect(files.count > 100, "read \(files.count) files under \(sources.path)")
        var bare: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                if code.contains("Mutex(") || code.contains("Mutex<") {
                    bare.append("\(file.lastPathComponent):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(bare.isEmpty, "use LockedValue: \(bare.joined(separator: "; "))")
    }
}
