// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ImageServer",
    dependencies: [
        // `name:` because a path dependency is otherwise known by its folder's name, which is
        // whatever the repository was cloned as. In your own project, use instead:
        // .package(url: "<this repository's URL>", branch: "main")
        .package(name: "swift-web-image", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        // Hummingbird already depends on it; named here for `HTTPField`, which it does not re-export.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "ImageServer",
            dependencies: [
                .product(name: "WebImage", package: "swift-web-image"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
