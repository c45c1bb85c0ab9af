import Foundation
import Testing
@testable import WebImage

/// `webimage cache info|clear|trim`: what each reports and removes, and a namespace that
/// names one folder inside the directory, never a way out of it.
@Suite struct CacheCommandTests {
    @Test func infoCountsAndClearEmptiesTheNamespace() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let cache = DiskCache(directory: base.url.appendingPathComponent("photos"))
        try cache.setData(Data([1, 2, 3]), forKey: "https://a.example/1.png")
        try cache.setData(Data([4, 5]), forKey: "https://a.example/2.png")

        let info = try WebImageCommand.run("cache", "info", "--directory", base.path, "--namespace", "photos", "--json")
        #expect(info.status == 0, "\(info.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(summary["count"] as? Int == 2)
        #expect(summary["size"] as? Int == 5)

        let clear = try WebImageCommand.run("cache", "clear", "--directory", base.path, "--namespace", "photos")
        #expect(clear.status == 0, "\(clear.stderr)")
        #expect(cache.totalCount == 0)
    }

    /// `clear` removes every file of the folder it names: `--namespace ../..` named the
    /// folder two levels above the directory (the home folder, with the default directory).
    @Test(arguments: ["..", "../..", ".", "", "a/b", "/tmp"])
    func aNamespaceThatIsNotOneFolderNameIsAUsageError(_ namespace: String) throws {
        let outer = try TemporaryDirectory()
        defer { outer.remove() }
        let base = outer.url.appendingPathComponent("caches")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let bystander = outer.url.appendingPathComponent("keep.txt")
        try Data("mine".utf8).write(to: bystander)

        for command in ["clear", "trim", "info"] {
            let run = try WebImageCommand.run("cache", command, "--directory", base.path, "--namespace", namespace)
            #expect(run.status == 64, "\(command) --namespace \(namespace.debugDescription): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("--namespace"))
        }
        #expect(FileManager.default.fileExists(atPath: bystander.path))
    }
}
