import Foundation
import Hummingbird
import WebImage

// The port comes from the first argument, else $PORT, so the same binary runs by hand and
// under a supervisor that assigns ports.
let environment = ProcessInfo.processInfo.environment
let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? environment["PORT"].flatMap { Int($0) } ?? 8080

// $CACHE_DIR lets tests and deployments put the disk cache on a volume of their choosing;
// without it the cache goes under $XDG_CACHE_HOME/swift-web-image.
let cacheDirectory = environment["CACHE_DIR"].map { URL(fileURLWithPath: $0, isDirectory: true) }
let manager = ImageManager(
    // A cache of its own, so the server's thumbnails neither evict nor are evicted by other
    // users of ImageCache.shared.
    cache: ImageCache(namespace: "image-server", directory: cacheDirectory),
    // Only the HTTP loader: the default loaders also read file: URLs, which would let any
    // client read files off the server. A real deployment should also allow-list origins.
    loader: LoadersManager(loaders: [Downloader.shared])
)

let router = Router()
ThumbnailController(manager: manager).addRoutes(to: router)

let app = Application(
    router: router,
    // Loopback only: this example fetches any URL it is given, which nobody on the network
    // should be able to ask it to do.
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "ImageServer")
)
// runService handles SIGINT and SIGTERM: in-flight requests finish before the process exits.
try await app.runService()
