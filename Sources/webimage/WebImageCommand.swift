import ArgumentParser
import Foundation
import WebImage

/// `webimage`: the library's loads, caches, decodes and encodes from the shell.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, encode and inspect images with swift-web-image.",
        version: versionText,
        subcommands: [
            InfoCommand.self, DecodeCommand.self, EncodeCommand.self, FramesCommand.self, CacheCommand.self,
            FetchCommand.self, PrefetchCommand.self, ServeCommand.self, DemoCommand.self,
        ]
    )

    /// What `webimage --version` prints: our version on the first line (what scripts parse),
    /// then each image library with the version it reports, so a bug report carries them.
    static var versionText: String {
        (["webimage \(WebImageVersion.current)"] + LinkedLibrary.all.map { "  \($0)" }).joined(separator: "\n")
    }
}
