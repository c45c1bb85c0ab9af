import ArgumentParser
import Foundation
import WebImage

/// `webimage cache info|clear|trim [--directory DIR] [--namespace NS]`: inspect and maintain
/// the disk cache that `ImageCache(namespace:directory:)` uses.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect, clear or trim an image disk cache.",
        subcommands: [Info.self, Clear.self, Trim.self]
    )

    /// Where the cache is: `DIR/NS`, as `ImageCache(namespace: NS, directory: DIR)` puts it.
    struct Location: ParsableArguments {
        // `--cache-dir` as fetch, prefetch and serve name the same folder.
        @Option(
            name: [.customLong("directory"), .customLong("cache-dir")],
            help: "The parent directory of the caches, as fetch's --cache-dir (default: $XDG_CACHE_HOME/swift-web-image, else ~/.cache/swift-web-image).")
        var directory: String?

        @Option(help: "The cache's namespace, a folder inside the directory.")
        var namespace = "default"

        var url: URL {
            let base = directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCache.defaultBaseDirectory
            // The library's folder for the namespace (`%` is written `%25` there).
            return base.appendingPathComponent(DiskCache.folderName(namespace: namespace), isDirectory: true)
        }

        /// Whether the cache's directory exists; throws when the path is something else, or
        /// a directory the user may not read, which would otherwise list as empty.
        func checkedExists() throws -> Bool {
            var info = stat()
            guard stat(url.path, &info) == 0 else {
                guard errno == ENOENT else { throw Failure("cannot read \(url.path): \(String(cString: strerror(errno)))") }
                return false
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw Failure("\(url.path) is not a directory") }
            guard access(url.path, R_OK | X_OK) == 0 else {
                throw Failure("cannot read \(url.path): \(String(cString: strerror(errno)))")
            }
            return true
        }

        /// One folder name: `clear` removes every file of the folder it names, and
        /// `--namespace ../..` named the home folder.
        func validate() throws {
            guard !namespace.isEmpty, namespace != ".", namespace != "..", !namespace.contains("/"), !namespace.contains("\0") else {
                throw ValidationError("--namespace must be one folder name, without '/' and not '.' or '..'")
            }
        }
    }

    /// `webimage cache info`: size, count, oldest and newest entry.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the cache's size, entry count, and oldest and newest entries."
        )

        @OptionGroup var location: Location

        @Option(help: "The date that orders entries: access, modification, creation or change.")
        var expireType: ExpireTypeArgument = .modification

        @OptionGroup var output: JSONOutputFlag

        /// The JSON contract; keys are stable.
        struct Summary: Encodable {
            let directory: String
            /// `false` when the directory does not exist (count and size are then 0).
            let exists: Bool
            let count: Int
            let size: Int
            let oldest: Entry?
            let newest: Entry?
        }

        struct Entry: Encodable {
            let file: String
            let size: Int
            let date: String
        }

        func run() throws {
            try reportingFailures {
                let cache = DiskCache(directory: location.url)
                // A missing directory is a cache nobody has written yet, not an error; it is
                // said as such, where it used to read as an existing empty cache.
                let exists = try location.checkedExists()
                let type = expireType.type
                let entries = cache.entries().sorted { $0.date(for: type) < $1.date(for: type) }
                let formatter = ISO8601DateFormatter()
                func entry(_ info: DiskCache.EntryInfo?) -> Entry? {
                    info.map { Entry(file: $0.fileName, size: $0.size, date: formatter.string(from: $0.date(for: type))) }
                }
                let summary = Summary(
                    directory: cache.directory.path,
                    exists: exists,
                    count: entries.count,
                    size: entries.reduce(0) { $0.saturatingAdding($1.size) },
                    oldest: entry(entries.first),
                    newest: entry(entries.last)
                )
                try output.emit(summary) {
                    guard summary.exists else { return ["directory: \(summary.directory) (does not exist: no cache there yet)"] }
                    var lines = [
                        "directory: \(summary.directory)",
                        "entries:   \(summary.count)",
                        "size:      \(summary.size) bytes (\(ByteCountFormatter.string(fromByteCount: Int64(summary.size), countStyle: .file)))",
                    ]
                    if let oldest = summary.oldest, let newest = summary.newest {
                        lines.append("oldest:    \(oldest.date)  \(oldest.file)  \(oldest.size) bytes")
                        lines.append("newest:    \(newest.date)  \(newest.file)  \(newest.size) bytes")
                    }
                    return lines
                }
            }
        }
    }

    /// `webimage cache clear`: remove every entry.
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry of the cache.")

        @OptionGroup var location: Location

        func run() throws {
            try reportingFailures {
                guard try location.checkedExists() else {
                    return StandardStreams.output("nothing removed: \(location.url.path) does not exist\n")
                }
                let cache = DiskCache(directory: location.url)
                // The library removes what it can and says nothing of what it could not (a
                // folder the user may not write): the report compares the entries before and
                // after, where it used to count them before and claim them all.
                let before = cache.entries()
                cache.removeAllData()
                let remaining = Set(cache.entries().map(\.fileName))
                let removed = before.filter { !remaining.contains($0.fileName) }
                let kept = before.count - removed.count
                StandardStreams.output("removed \(removed.count) entries, \(removed.reduce(0) { $0 + $1.size }) bytes\n")
                guard kept == 0 else {
                    let reason = access(location.url.path, W_OK) == 0 ? "" : ": \(String(cString: strerror(errno)))"
                    throw Failure("cannot remove \(kept) of \(before.count) entries in \(location.url.path)\(reason)")
                }
            }
        }
    }

    /// `webimage cache trim`: remove expired entries, then the oldest while over the size limit.
    struct Trim: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove expired entries, then the oldest until under half the size limit."
        )

        @OptionGroup var location: Location

        @Option(help: "Age in seconds after which entries expire; negative: never.")
        var maxAge: Double = 7 * 24 * 3600

        @Option(help: "Limit in bytes of disk space (allocated blocks, not file lengths); 0: none.")
        var maxSize = 0

        func validate() throws {
            // NaN made every comparison false: nothing expired, and the summary read as if
            // the trim had run.
            guard !maxAge.isNaN else { throw ValidationError("--max-age must be a number of seconds") }
            guard maxSize >= 0 else { throw ValidationError("--max-size must be 0 (none) or a number of bytes") }
        }

        @Option(help: "The date that ages entries: access, modification, creation or change.")
        var expireType: ExpireTypeArgument = .modification

        func run() throws {
            try reportingFailures {
                // "0 entries remain" would read as a trim of an empty cache; a mistyped
                // directory or namespace should be seen as one.
                guard try location.checkedExists() else {
                    return StandardStreams.output("nothing removed: \(location.url.path) does not exist\n")
                }
                var configuration = DiskCache.Configuration()
                configuration.maxAge = maxAge
                configuration.maxSize = maxSize
                configuration.expireType = expireType.type
                let cache = DiskCache(directory: location.url, configuration: configuration)
                let result = cache.removeExpiredData()
                StandardStreams.output("removed \(result.expiredCount) expired and \(result.trimmedCount) over-size entries, \(result.removedSize) bytes of disk freed; \(cache.totalCount) entries, \(cache.totalSize) bytes of data remain\n")
                // As `clear`: a cron job's `trim || alert` must see a trim that could not
                // remove what it should have.
                guard result.failedCount == 0 else {
                    let reason = access(location.url.path, W_OK) == 0 ? "" : ": \(String(cString: strerror(errno)))"
                    throw Failure("cannot remove \(result.failedCount) entries in \(location.url.path)\(reason)")
                }
            }
        }
    }

    /// A cache the command cannot read or empty, worded for the user.
    struct Failure: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// `--expire-type` values.
    enum ExpireTypeArgument: String, ExpressibleByArgument, CaseIterable {
        case access, modification, creation, change

        var type: DiskCache.ExpireType {
            switch self {
            case .access: .accessDate
            case .modification: .modificationDate
            case .creation: .creationDate
            case .change: .changeDate
            }
        }
    }
}
