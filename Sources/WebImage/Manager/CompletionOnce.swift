/// Guards the callback form's completion: at most one early (cached) result with
/// `.refreshCached`, then exactly one final call — unless the final outcome is "no
/// change" after the cached result was delivered, which calls nothing.
///
/// Thread-safe: the load's task and a cancelling thread may race; the first final call wins.
final class CompletionOnce: Sendable {
    typealias Completion = @Sendable (Result<ImageLoadResult, WebImageError>) -> Void
    private struct State {
        /// Let go of at the final call, so that nothing the caller's closure holds (a
        /// binding's target, its owner) outlives the load through the operation handle.
        var completion: Completion?
        var deliveredFirst = false
        var finished = false
    }

    private let state: LockedValue<State>

    init(_ completion: @escaping Completion) {
        state = LockedValue(State(completion: completion))
    }

    /// Delivers the cached result before a refresh.
    func first(_ result: Result<ImageLoadResult, WebImageError>) {
        let completion = state.withLock { state -> Completion? in
            guard !state.finished, !state.deliveredFirst else { return nil }
            state.deliveredFirst = true
            return state.completion
        }
        completion?(result)
    }

    /// Delivers the final result; `nil` means "unchanged" (the cached result went out
    /// already). A failure after the cached result (a cancelled refresh) is not reported:
    /// the caller has its image. The completion is released either way.
    func final(_ result: Result<ImageLoadResult, WebImageError>?) {
        // The completion is taken out under the lock and released after it: its captures'
        // `deinit`s (an owner that cancels its load as it goes) may call back in here.
        let (completion, delivers) = state.withLock { state -> (Completion?, Bool) in
            guard !state.finished else { return (nil, false) }
            state.finished = true
            let completion = state.completion
            state.completion = nil
            guard let result else { return (completion, false) }
            if state.deliveredFirst, case .failure = result { return (completion, false) }
            return (completion, true)
        }
        if delivers, let completion, let result { completion(result) }
    }
}
