import Foundation
import Testing
@testable import WebImage

/// The `async` form ``ImageManaging`` gives a manager that writes only the callback form.
@Suite struct ImageManagingTests {
    @Test func theDefaultAsyncFormReturnsTheCallbackFormsResult() async throws {
        let image = TestImageManager.pixel()
        let manager = TestImageManager(image: { _ in image })
        let url = try #require(URL(string: "https://example.test/a.png"))
        let result = try await manager.loadImage(with: url, options: [], context: ImageContext(), progress: nil)
        #expect(result.image === image)
        #expect(result.url == url)
        #expect(manager.loadCount == 1)
    }

    @Test func cancellingTheCallingTaskCancelsTheCallbackLoad() async throws {
        let manager = TestImageManager { _ in TestImageManager.Plan(delay: .seconds(30)) }
        let url = try #require(URL(string: "https://example.test/slow.png"))
        let task = Task { try await manager.loadImage(with: url, options: [], context: ImageContext(), progress: nil) }
        while manager.running < 1 { await Task.yield() }
        let started = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled load returned an image")
        } catch {
            #expect(error as? WebImageError == .cancelled)
        }
        #expect(manager.cancelCount == 1)
        #expect(ContinuousClock.now - started < .seconds(5).scaled)
    }
}
