import ArgumentParser
import Foundation
import WebImage

/// `webimage`: the library's loads, caches, decodes and encodes from the shell.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, encode and inspect images with swift-web-image.",
        subcommands: [
            InfoCommand.self, DecodeCommand.self, EncodeCommand.self, FramesCommand.self, CacheCommand.self,
            FetchCommand.self, PrefetchCommand.self, DemoCommand.self,
        ]
    )
}
