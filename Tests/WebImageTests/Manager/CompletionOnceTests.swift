import Foundation
import Testing
@testable import WebImage

/// The callback form's once-only completion.
@Suite struct CompletionOnceTests {
    /// Holds a load's completion guard and, as it goes, ends the load (as an owner whose
    /// `deinit` cancels its operation does).
    final class CancellingOwner: Sendable {
        let once = LockedValue<CompletionOnce?>(nil)
        deinit { once.withLock { $0 }?.final(.failure(.cancelled)) }
    }

    /// The completion is let go of at the final call, and outside the guard's lock: the
    /// captures' `deinit`s may call back in. Released under the lock (a review's finding),
    /// an unchanged refresh whose completion held the last reference to such an owner
    /// trapped on the recursive lock.
    @Test func theCompletionIsReleasedOutsideTheLockAtTheFinalCall() {
        let calls = LockedValue(0)
        var owner: CancellingOwner? = CancellingOwner()
        weak let released = owner
        let once = CompletionOnce { [owner] _ in
            _ = owner
            calls.withLock { $0 += 1 }
        }
        owner?.once.withLock { $0 = once }
        owner = nil
        let image = Image(pixels: PixelBuffer(width: 1, height: 1, filling: RGBAColor(red: 1, green: 2, blue: 3)))
        once.first(.success(ImageLoadResult(image: image, data: nil, cacheType: .memory, url: URL(fileURLWithPath: "/a"))))
        #expect(released != nil, "held until the final call")
        once.final(nil)
        #expect(released == nil, "let go of at the final call")
        #expect(calls.withLock { $0 } == 1, "the cached result only: unchanged, then nothing")
    }
}
