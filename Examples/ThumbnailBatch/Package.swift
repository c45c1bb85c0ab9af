// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ThumbnailBatch",
    dependencies: [
        // `name:` because a path dependency is otherwise known by its folder's name, which is
        // whatever the repository was cloned as. In your own project, use instead:
        // .package(url: "<this repository's URL>", branch: "main")
        .package(name: "swift-web-image", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "ThumbnailBatch",
            dependencies: [.product(name: "WebImage", package: "swift-web-image")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
