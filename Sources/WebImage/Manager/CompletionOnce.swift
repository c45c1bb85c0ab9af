/// Guards the callback form's completion: at most one early (cached) result with
/// `.refreshCached`, then exactly one final call — unless the final outcome is "no
/// change" after the cached result was delivered, which calls nothing.
///
/// Thread-safe: the load's task and a cancelling thread may race; the first final call wins.
final class CompletionOnce: Sendable {
    typealias Completion = @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    private struct State {
        var deliveredFirst = false
        var finished = false
    }

    private let completion: Completion
    private let state = LockedValue(State())

    init(_ completion: @escaping Completion) {
        self.completion = completion
    }

    /// Delivers the cached result before a refresh.
    func first(_ result: Result<ImageLoadResult, WebImageError>) {
        let go = state.withLock { state in
            guard !state.finished, !state.deliveredFirst else { return false }
            state.deliveredFirst = true
            return true
        }
        if go { completion(result) }
    }

    /// Delivers the final result; `nil` means "unchanged" (the cached result went out
    /// already). A failure after the cached result (a cancelled refresh) is not reported:
    /// the caller has its image.
    func final(_ result: Result<ImageLoadResult, WebImageError>?) {
        let go = state.withLock { state in
            guard !state.finished else { return false }
            state.finished = true
            guard let result else { return false }
            if state.deliveredFirst, case .failure = result { return false }
            return true
        }
        if go, let result { completion(result) }
    }
}
