import Foundation
import Testing
@testable import WebImage

/// ``ImageContext/imageFormatHint`` through a real manager, loopback origin and cache
/// directory: an SVG served with a byte-order mark fails without the hint and loads with
/// it, from the network and again from disk, where the bytes are kept as they came.
@Suite struct ImageManagerFormatHintTests {
    /// The hint, and a coder that has SVG (the shared one leaves it out: trusted documents
    /// only).
    static var svgHint: ImageContext {
        var context = ImageContext()
        context.imageFormatHint = .svg
        context.imageCoder = CodersManager(coders: CodersManager.builtInCodersWithDocuments)
        return context
    }

    @Test func aHintedLoadDecodesBytesThatDoNotNameTheirFormat() async throws {
        let svg = try FormatHintTests.markedSVG()
        try await LoopbackServer.with(["/logo.svg": .ok(svg, contentType: "image/svg+xml")]) { server in
            try await ManagerHarness.with { harness in
                let url = server.url("/logo.svg")
                let cache = harness.makeCache()
                let manager = harness.makeManager(cache: cache)
                await #expect(throws: WebImageError.self) {
                    try await manager.loadImage(with: url, options: .waitStoreCache)
                }
                #expect(cache.diskImageData(forKey: url.absoluteString) == nil)

                // The failure blocked the URL (SDWebImage's rule for bad data): retry it.
                let result = try await manager.loadImage(with: url, options: [.waitStoreCache, .retryFailed], context: Self.svgHint)
                #expect(result.image.format == .svg)
                #expect(result.image.size == ImageSize(width: 131, height: 76))
                #expect(cache.diskImageData(forKey: url.absoluteString) == svg)

                // From disk, in a new manager over the same directory, the hint decodes it again.
                let fresh = harness.makeManager()
                let again = try await fresh.loadImage(with: url, context: Self.svgHint)
                #expect(again.cacheType == .disk)
                #expect(again.image.pixels == result.image.pixels)
            }
        }
    }
}
