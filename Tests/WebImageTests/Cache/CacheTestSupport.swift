import Foundation
@testable import WebImage

/// A fresh directory under the system temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init(_ label: String = #function) throws {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-cache-\(safe)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// The names of the visible files directly inside.
    func visibleFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
    }
}

/// A still image of one colour; distinct calls give distinct objects.
func makeImage(width: Int = 4, height: Int = 4, color: RGBAColor = RGBAColor(red: 10, green: 20, blue: 30, alpha: 255),
               format: ImageFormat = .undefined, hasAlpha: Bool = false) -> Image {
    Image(pixels: PixelBuffer(width: width, height: height, filling: color), format: format, hasAlpha: hasAlpha)
}

/// A two-frame animation.
func makeAnimatedImage(format: ImageFormat = .undefined) -> Image {
    let red = PixelBuffer(width: 4, height: 4, filling: RGBAColor(red: 255, green: 0, blue: 0, alpha: 255))
    let blue = PixelBuffer(width: 4, height: 4, filling: RGBAColor(red: 0, green: 0, blue: 255, alpha: 255))
    return Image(frames: [ImageFrame(pixels: red, duration: 0.1), ImageFrame(pixels: blue, duration: 0.1)], format: format)
}

/// Sets a file's modification and access dates `age` seconds into the past.
func age(_ path: String, by age: TimeInterval, access: Bool = true, modification: Bool = true) {
    let date = Date().addingTimeInterval(-age)
    _ = FileIO.setDates(path, access: access ? date : nil, modification: modification ? date : nil)
}

/// Wraps a coder, counting decodes and optionally slowing each one down, to observe how
/// often and when the cache decodes.
final class CountingCoder: ImageCoder {
    private let base: any ImageCoder
    private let delay: TimeInterval
    private let gate: DispatchSemaphore?
    private let counter = LockedValue(0)
    private let finished = LockedValue(0)
    private let inTask = LockedValue<[Bool]>([])

    /// A coder whose decodes first sleep `delay`, and wait for `gate` when one is given (a
    /// decode that must outlast something whatever the machine's load).
    init(_ base: any ImageCoder = CodersManager.shared, delay: TimeInterval = 0, gate: DispatchSemaphore? = nil) {
        self.base = base
        self.delay = delay
        self.gate = gate
    }

    var decodeCount: Int { counter.withLock { $0 } }
    /// Decodes that have returned (or thrown).
    var finishedCount: Int { finished.withLock { $0 } }

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    /// For each decode, whether it ran inside a Swift task (the caller's) rather than on a
    /// thread of the blocking-work queue.
    var decodedInTask: [Bool] { inTask.withLock { $0 } }

    func decode(_ data: Data, options: ImageCoderOptions) throws -> Image {
        counter.withLock { $0 += 1 }
        let task = withUnsafeCurrentTask { $0 != nil }
        inTask.withLock { $0.append(task) }
        defer { finished.withLock { $0 += 1 } }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        gate?.wait()
        return try base.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }

    func encode(_ image: Image, as format: ImageFormat, options: ImageCoderOptions) throws -> Data {
        try base.encode(image, as: format, options: options)
    }
}

/// An ``ImageCache`` in a fresh temporary directory, with its directory for cleanup.
func makeImageCache(
    _ label: String = #function,
    config: ImageCache.Configuration = ImageCache.Configuration(),
    coder: any ImageCoder = CodersManager.shared
) throws -> (ImageCache, TemporaryDirectory) {
    let directory = try TemporaryDirectory(label)
    var config = config
    config.diskCleanupInterval = nil
    return (ImageCache(namespace: "test", directory: directory.url, config: config, coder: coder), directory)
}
