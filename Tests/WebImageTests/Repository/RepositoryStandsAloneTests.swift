import Foundation
import Testing

/// A clone of this repository with nothing beside it must build, test, benchmark and run its
/// demo. These tests read every source, script, Makefile, test and document in the
/// repository and fail when one of them names a path outside it: a relative path that climbs
/// above the repository root, or a folder of the machine the project was first written on.
@Suite struct RepositoryStandsAloneTests {
    /// One place where a file names a path outside the repository.
    struct Escape: CustomStringConvertible, Equatable {
        let file: String
        let line: Int
        let text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    /// Names that only exist outside a clone. Built from pieces so that this file does not
    /// name them itself.
    static let foreignFragments = [".." + "/shared", "shared" + "/corpus", "/" + "work/"]

    /// The places in `text` (the contents of a file `depth` folders below the root) that
    /// leave the repository. A run of `../` at the start of a path climbs out when it has
    /// more steps than the file is deep: resolved from the file's own folder it leaves the
    /// root, and resolved from the root (where make and the scripts run) it leaves at once.
    static func escapes(in text: String, file: String, depth: Int) -> [Escape] {
        var found: [Escape] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let climbs = leadingClimbs(in: line)
            if foreignFragments.contains(where: line.contains) || climbs.contains(where: { $0 > depth }) {
                found.append(Escape(file: file, line: index + 1, text: line.trimmingCharacters(in: .whitespaces)))
            }
        }
        return found
    }

    /// The number of `../` steps of every relative path in `line` that starts with them
    /// (after a quote, a space, `(`, `=` or the like; `a/../b`, `.../` and `..<` are not climbs).
    static func leadingClimbs(in line: String) -> [Int] {
        let characters = Array(line)
        func isPathCharacter(_ character: Character) -> Bool {
            character.isLetter || character.isNumber || "._-~/$}".contains(character)
        }
        var climbs: [Int] = []
        var index = 0
        while index < characters.count {
            guard index == 0 || !isPathCharacter(characters[index - 1]) else {
                index += 1
                continue
            }
            var steps = 0
            var cursor = index
            while cursor + 1 < characters.count, characters[cursor] == ".", characters[cursor + 1] == "." {
                let next = cursor + 2 < characters.count ? characters[cursor + 2] : " "
                if next == "/" {
                    steps += 1
                    cursor += 3
                } else {
                    if "\"' )`]".contains(next) { steps += 1 }
                    cursor += 2
                    break
                }
            }
            if steps > 0 { climbs.append(steps) }
            index = max(cursor, index + 1)
        }
        return climbs
    }

    /// Every text file of the repository that a build, a test, a benchmark or a reader uses:
    /// sources, scripts, Makefiles, package manifests, tests, CI and documentation. Build
    /// folders, git's own folder and the image corpus are not read.
    static func repositoryFiles() throws -> [(path: String, depth: Int, url: URL)] {
        let root = Corpus.repositoryRoot.standardizedFileURL
        let textEndings: Set<String> = ["swift", "c", "h", "modulemap", "sh", "py", "md", "txt", "yml", "yaml", "json", "docc", "mk"]
        let textNames: Set<String> = ["Makefile", "run", ".gitignore"]
        let keys: Set<URLResourceKey> = [.isDirectoryKey, .isRegularFileKey, .fileSizeKey]
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: Array(keys)) else {
            return []
        }
        var files: [(path: String, depth: Int, url: URL)] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            let values = try url.resourceValues(forKeys: keys)
            if values.isDirectory == true {
                // Build folders (.build, .build-*, Examples' own), git, SwiftPM's state: none is the repository's text.
                if (name.hasPrefix(".") && name != ".ci") || name == "Corpus" { walker.skipDescendants() }
                continue
            }
            guard values.isRegularFile == true, textEndings.contains(url.pathExtension) || textNames.contains(name) else { continue }
            // Large generated reference data holds no paths and would only slow the scan.
            if url.pathExtension == "json", values.fileSize ?? 0 > 200_000 { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            files.append((relative, relative.split(separator: "/").count - 1, url))
        }
        return files
    }

    @Test func noFileNamesAPathOutsideTheRepository() throws {
        let files = try Self.repositoryFiles()
        // The scan must have found the repository: the Makefile, the manifest, this file.
        let paths = Set(files.map(\.path))
        #expect(paths.isSuperset(of: ["Makefile", "Package.swift", "Tests/WebImageTests/Repository/RepositoryStandsAloneTests.swift"]))
        var escapes: [Escape] = []
        for file in files {
            guard let text = try? String(contentsOf: file.url, encoding: .utf8) else { continue }
            escapes += Self.escapes(in: text, file: file.path, depth: file.depth)
        }
        #expect(escapes.isEmpty, "paths outside the repository:\n\(escapes.map(\.description).joined(separator: "\n"))")
    }

    @Test func theImagesTheTestsAndDemoUseAreInTheRepository() throws {
        let corpus = Corpus.repositoryRoot.appendingPathComponent("Corpus/sdwebimage")
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
        #expect(names.contains("README.md"), "the corpus keeps its MIT notice")
        #expect(names.filter { !$0.hasSuffix(".md") }.count >= 25)
        #expect(try Data(contentsOf: corpus.appendingPathComponent("TestImage.jpg")).count > 1000)
    }

    // The lines are made so that this file, which the scan reads too, does not itself climb
    // out of the repository or name a foreign folder.
    @Test(arguments: [
        ("CORPUS ?= ../elsewhere/corpus", 0, true),
        ("- [../NOTES.md](../NOTES.md)", 0, true),
        ("os.path.join(HERE, \"" + String(repeating: "../", count: 5) + "x\")", 4, true),
        ("os.path.join(HERE, \"" + String(repeating: "../", count: 4) + "Corpus/sdwebimage\")", 4, false),
        (".package(path: \"../..\")", 2, false),
        (".package(path: \"" + String(repeating: "../", count: 2) + "..\")", 2, true),
        ("cd \"$(dirname \"$0\")/..\"", 1, false),
        ("x = a/../../b and .../ and …/", 0, false),
        ("cp ../x y", 0, true),
        ("cp ../x y", 1, false),
    ] + foreignFragments.map { ("corpus=" + $0 + "images", 3, true) })
    func detectsPathsThatLeaveTheRepository(line: String, depth: Int, leaves: Bool) {
        let found = Self.escapes(in: line, file: "f", depth: depth)
        #expect(found.isEmpty == !leaves, "\(line) at depth \(depth)")
    }
}
