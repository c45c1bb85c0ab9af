import Foundation
import Testing
@testable import WebImage

/// What `-o` does to what it names, for every command that writes a file: a symbolic link
/// is followed, a FIFO is written into, a directory is an error, a file the user may not
/// write is refused, and a replaced file keeps its mode. Each used to be replaced by a
/// rename, whatever it was. Runs the real binary in a temporary folder.
@Suite struct OutputFileCommandTests {
    /// The commands that write `-o`, each with what it reads: `fetch` loads a `file:` URL,
    /// with `--raw` copying the original bytes from its cache entry.
    static let writers: [[String]] = [["decode"], ["encode", "--format", "png"], ["fetch"], ["fetch", "--raw"]]

    /// A small PNG in `folder`, readable by everyone (the unprivileged runs read it).
    func input(in folder: TemporaryDirectory) throws -> URL {
        let url = folder.url.appendingPathComponent("in.png")
        try pngData(width: 8, height: 8).write(to: url)
        return url
    }

    /// `command` writing `input` to `output`.
    func arguments(_ command: [String], input: URL, output: String, folder: TemporaryDirectory) -> [String] {
        guard command[0] == "fetch" else { return command + [input.path, "-o", output] }
        let cache = folder.url.appendingPathComponent("cache").path
        return command + [input.absoluteString, "-o", output, "--cache-dir", cache]
    }

    func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test(arguments: writers)
    func aSymbolicLinkIsFollowedAndStaysALink(_ command: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let input = try input(in: folder)
        let target = folder.url.appendingPathComponent("target.png")
        try Data("old".utf8).write(to: target)
        let link = folder.url.appendingPathComponent("link.png")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "target.png")
        // A link to nothing yet: the file is created where it points.
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let dangling = folder.url.appendingPathComponent("dangling.png")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "sub/new.png")

        for (output, written) in [(link, target), (dangling, folder.url.appendingPathComponent("sub/new.png"))] {
            let result = try WebImageCommand.run(arguments(command, input: input, output: output.path, folder: folder))
            #expect(result.status == 0, "\(command) -o \(output.lastPathComponent): \(result.stderr)")
            #expect(isSymbolicLink(output.path), "\(command) replaced \(output.lastPathComponent)")
            #expect(ImageFormat(sniffing: try Data(contentsOf: written)) == .png, "\(command) -o \(output.lastPathComponent)")
        }
    }

    /// A FIFO is opened and written, never replaced: `-o fifo` left a regular file where the
    /// FIFO was and its reader waiting forever. The reader opens it before the command runs,
    /// without waiting for a writer, so the command's open succeeds at once; the image (a
    /// few hundred bytes) fits the pipe's buffer, and on the old code the read is simply
    /// empty instead of a test that hangs.
    @Test(arguments: writers)
    func aFIFOIsWrittenIntoNotReplaced(_ command: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let input = try input(in: folder)
        let fifo = folder.url.appendingPathComponent("out.fifo.png")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(reader >= 0)
        defer { close(reader) }

        let result = try WebImageCommand.run(arguments(command, input: input, output: fifo.path, folder: folder))
        #expect(result.status == 0, "\(command): \(result.stderr)")
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[..<count])
        }
        #expect(ImageFormat(sniffing: received) == .png, "\(command) wrote \(received.count) bytes into the FIFO")
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "\(command) replaced the FIFO")
    }

    /// A directory named as the output: an error for a command that writes one file, and
    /// for `fetch` the folder its outputs go into (as `-o DIR/`, whatever the number of
    /// URLs: curl's `--output-dir`).
    @Test(arguments: writers)
    func aDirectoryIsAnErrorOrFetchsFolder(_ command: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let input = try input(in: folder)
        let directory = folder.url.appendingPathComponent("out.png")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

        let result = try WebImageCommand.run(arguments(command, input: input, output: directory.path, folder: folder))
        if command.first == "fetch" {
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 1)
            return
        }
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write \(directory.path): is a directory"), "\(command): \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// The rename replaced the file with one of mode 0644 (0666 less the umask): a file the
    /// user had kept private became readable by all.
    @Test(arguments: writers)
    func aReplacedFileKeepsItsMode(_ command: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let input = try input(in: folder)
        let output = folder.url.appendingPathComponent("out.png")
        try Data("old".utf8).write(to: output)
        try #require(chmod(output.path, 0o640) == 0)

        let result = try WebImageCommand.run(arguments(command, input: input, output: output.path, folder: folder))
        #expect(result.status == 0, "\(command): \(result.stderr)")
        #expect(ImageFormat(sniffing: try Data(contentsOf: output)) == .png)
        #expect(mode(output.path) == 0o640, "\(command): mode \(String(mode(output.path), radix: 8))")
    }

    /// A file the user may not write is refused and left as it was: the rename needs only
    /// the directory's permission, so it was replaced. Root may write any file, so as root
    /// the command runs as `nobody`, in a folder everyone may write to (else the old code's
    /// temporary file would fail for another reason).
    @Test(.enabled(if: WebImageCommand.canRunUnprivileged, WebImageCommand.unprivilegedSkipReason), arguments: [["decode"], ["encode", "--format", "png"]])
    func aFileTheUserMayNotWriteIsRefusedAndKept(_ command: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try #require(chmod(folder.path, 0o777) == 0)
        let input = try input(in: folder)
        let output = folder.url.appendingPathComponent("read-only.png")
        try Data("keep".utf8).write(to: output)
        try #require(chmod(output.path, 0o444) == 0)

        let result = try WebImageCommand.run(command + [input.path, "-o", output.path], unprivileged: true)
        #expect(result.status == 1)
        #expect(result.stderr == "webimage: error: cannot write \(output.path): Permission denied\n", "\(command): \(result.stderr)")
        #expect(try Data(contentsOf: output) == Data("keep".utf8))
        #expect(mode(output.path) == 0o444)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.png", "read-only.png"])
    }

    /// A bare one-letter name, relative to the working directory: finding its folder with
    /// `NSString.deletingLastPathComponent` trapped in Foundation, so `fetch --raw URL -o q`
    /// crashed.
    @Test(arguments: writers)
    func aBareOneLetterNameIsWritten(_ command: [String]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let input = try input(in: folder)
        let result = try WebImageCommand.run(arguments(command, input: input, output: "q", folder: folder), directory: folder.url)
        #expect(result.status == 0, "\(command): \(result.stderr.prefix(300))")
        #expect(ImageFormat(sniffing: try Data(contentsOf: folder.url.appendingPathComponent("q"))) == .png)
    }

    /// `frames` writes its files through the same door: a frame name that is a link is
    /// followed.
    @Test func framesFollowsALinkInTheOutputFolder() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let frames = folder.url.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let target = folder.url.appendingPathComponent("first.png")
        try FileManager.default.createSymbolicLink(atPath: frames.appendingPathComponent("frame-000.png").path, withDestinationPath: target.path)

        let result = try WebImageCommand.run("frames", Corpus.directory.appendingPathComponent("TestImage.gif").path, "-o", frames.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(isSymbolicLink(frames.appendingPathComponent("frame-000.png").path))
        #expect(ImageFormat(sniffing: try Data(contentsOf: target)) == .png)
    }

    /// A review's finding: `-o /dev/stdout` was followed by reading its links, which end at
    /// "pipe:[N]", no path, and the write failed. The system follows it now: into a pipe
    /// the image goes as through `-o -`.
    @Test func devStdoutOnAPipeGetsTheImage() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // The 8 × 8 image fits the pipe's buffer: read once the command has exited.
        let pipe = Pipe()
        let result = try WebImageCommand.run(["decode", try input(in: folder).path, "-o", "/dev/stdout"], standardOutput: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        #expect(result.status == 0, "\(result.stderr)")
        let received = pipe.fileHandleForReading.readDataToEndOfFile()
        #expect(ImageFormat(sniffing: received) == .png, "\(received.count) bytes")
    }

    /// Standard output appended to a file (`>> log`) and `-o /dev/stdout`: the link led to
    /// the file, which the rename replaced, losing what it held. It is written as standard
    /// output now, after what was there.
    @Test func devStdoutOnAFileAppendsToIt() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let log = folder.url.appendingPathComponent("log.bin")
        try Data("HEADER\n".utf8).write(to: log)
        let descriptor = open(log.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(descriptor >= 0)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let result = try WebImageCommand.run(["decode", try input(in: folder).path, "-o", "/dev/stdout"], standardOutput: handle)
        try handle.close()
        #expect(result.status == 0, "\(result.stderr)")
        let written = try Data(contentsOf: log)
        #expect(written.starts(with: Data("HEADER\n".utf8)), "what the file held stays")
        #expect(ImageFormat(sniffing: written.dropFirst(7)) == .png)
    }

    /// `-o /dev/stderr` with standard error appended to a log (`2>> log`): the rename
    /// replaced the log. It is written to the stream now, after what the log held.
    @Test func devStderrOnAFileAppendsToIt() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let log = folder.url.appendingPathComponent("err.log")
        try Data("LOGLINE\n".utf8).write(to: log)
        let descriptor = open(log.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        try #require(descriptor >= 0)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let process = Process()
        process.executableURL = WebImageCommand.binary
        process.arguments = ["decode", try input(in: folder).path, "-o", "/dev/stderr"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        #expect(process.terminationStatus == 0)
        let written = try Data(contentsOf: log)
        #expect(written.starts(with: Data("LOGLINE\n".utf8)), "what the log held stays")
        #expect(ImageFormat(sniffing: written.dropFirst(8)) == .png)
    }

    /// A file the user may write in a folder they may not: the rename's temporary file
    /// cannot be made there, and the error says so (it read "cannot write FILE: Permission
    /// denied", which `ls -l FILE` contradicts). The file stays as it was.
    @Test(.enabled(if: WebImageCommand.canRunUnprivileged, WebImageCommand.unprivilegedSkipReason))
    func aWritableFileInAClosedFolderNamesTheFolder() throws {
        let folder = try TemporaryDirectory()
        defer {
            chmod(folder.url.appendingPathComponent("closed").path, 0o755)
            folder.remove()
        }
        try #require(chmod(folder.path, 0o777) == 0)
        let input = try input(in: folder)
        let closed = folder.url.appendingPathComponent("closed")
        try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: true)
        let output = closed.appendingPathComponent("out.png")
        try Data("keep".utf8).write(to: output)
        try #require(chmod(output.path, 0o666) == 0 && chmod(closed.path, 0o555) == 0)

        let result = try WebImageCommand.run(["decode", input.path, "-o", output.path], unprivileged: true)
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot make a temporary file in \(closed.path)"), "\(result.stderr)")
        #expect(try Data(contentsOf: output) == Data("keep".utf8))
    }
}
