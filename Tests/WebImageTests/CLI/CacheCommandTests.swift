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
        #expect(clear.stdout == "removed 2 entries, 5 bytes\n")
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

    /// `info` on a directory that does not exist read as an empty cache ("entries: 0");
    /// it says the directory does not exist, and `--json` says `"exists": false`.
    @Test func infoSaysWhenTheDirectoryDoesNotExist() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let missing = base.url.appendingPathComponent("never", isDirectory: true).appendingPathComponent("default").path

        let text = try WebImageCommand.run("cache", "info", "--directory", base.url.appendingPathComponent("never").path)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == "directory: \(missing) (does not exist: no cache there yet)\n", "\(text.stdout)")
        let json = try WebImageCommand.run("cache", "info", "--directory", base.url.appendingPathComponent("never").path, "--json")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(summary["exists"] as? Bool == false)

        try FileManager.default.createDirectory(at: base.url.appendingPathComponent("default"), withIntermediateDirectories: true)
        let empty = try WebImageCommand.run("cache", "info", "--directory", base.path, "--json")
        let emptySummary = try #require(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        #expect(emptySummary["exists"] as? Bool == true)
        #expect(emptySummary["count"] as? Int == 0)
    }

    /// `clear` counted the entries, asked the library to remove them, and reported the
    /// count whatever happened: in a folder the user may not change it said "removed 2
    /// entries" and exited 0 with both still there. `trim` did the same with what had
    /// expired, so `trim || alert` never fired (a review's finding). Root may change any
    /// folder, so as root the command runs as `nobody`.
    @Test(.enabled(if: WebImageCommand.canRunUnprivileged, WebImageCommand.unprivilegedSkipReason), arguments: ["clear", "trim"])
    func aCommandThatCannotRemoveFails(_ command: String) throws {
        let base = try TemporaryDirectory()
        defer {
            chmod(base.url.appendingPathComponent("photos").path, 0o755)
            base.remove()
        }
        let cache = DiskCache(directory: base.url.appendingPathComponent("photos"))
        try cache.setData(Data([1, 2, 3]), forKey: "https://a.example/1.png")
        try cache.setData(Data([4, 5]), forKey: "https://a.example/2.png")
        try #require(chmod(base.url.appendingPathComponent("photos").path, 0o555) == 0)

        let extra = command == "trim" ? ["--max-age", "0"] : []
        let run = try WebImageCommand.run(["cache", command, "--directory", base.path, "--namespace", "photos"] + extra, unprivileged: true)
        #expect(run.status == 1, "\(run.stdout)")
        if command == "clear" {
            #expect(run.stdout == "removed 0 entries, 0 bytes\n", "\(run.stdout)")
            #expect(run.stderr.contains("cannot remove 2 of 2 entries"), "\(run.stderr)")
        } else {
            #expect(run.stdout.hasPrefix("removed 0 expired and 0 over-size entries"), "\(run.stdout)")
            #expect(run.stderr.contains("cannot remove 2 entries"), "\(run.stderr)")
        }
        #expect(cache.totalCount == 2)
    }

    @Test(arguments: ["clear", "trim"])
    func clearOrTrimOfAMissingDirectorySaysSo(_ command: String) throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let run = try WebImageCommand.run("cache", command, "--directory", base.path, "--namespace", "none")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "nothing removed: \(base.url.appendingPathComponent("none").path) does not exist\n", "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: base.url.appendingPathComponent("none").path))
    }

    /// `--cache-dir`, as fetch, prefetch and serve spell the same folder.
    @Test func cacheDirIsTheDirectory() throws {
        let base = try TemporaryDirectory()
        defer { base.remove() }
        let cache = DiskCache(directory: base.url.appendingPathComponent("photos"))
        try cache.setData(Data([1, 2, 3]), forKey: "https://a.example/1.png")
        let byDirectory = try WebImageCommand.run("cache", "info", "--directory", base.path, "--namespace", "photos", "--json")
        let byCacheDir = try WebImageCommand.run("cache", "info", "--cache-dir", base.path, "--namespace", "photos", "--json")
        #expect(byCacheDir.status == 0, "\(byCacheDir.stderr)")
        #expect(byCacheDir.stdout == byDirectory.stdout)
    }
}
