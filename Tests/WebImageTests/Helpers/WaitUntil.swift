import Foundation

/// Polls `condition` until it holds or `limit` (times ``TestTime/scale``) passes; returns
/// whether it held. The suites' waits for something another task does all use this one;
/// the few loops bounded by ``TestTime/prompt`` are checks that something happens at once,
/// not waits, and keep their own deadline.
///
/// It returns as soon as the condition holds, so the limit costs nothing then: it only
/// matters when the condition never comes, and it is long by default because on a starved
/// two-core machine a load's hop back to its actor, or a download's first bytes, waited
/// behind the parallel pass's other work for tens of seconds (10 s was not enough there,
/// nor 30 s on a machine starved harder). It sleeps 5 ms between looks rather than
/// yielding: a yielding loop kept one of the cooperative pool's two threads busy, which
/// the work it waits for needs.
///
/// It runs on the caller's actor (`isolation`), so a main-actor test polls its main-actor
/// state with a plain closure.
func waitUntil(
    _ limit: Duration = .seconds(60),
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit.scaled
    while true {
        if try await condition() { return true }
        // A cancelled task's sleep returns at once: look a last time instead of spinning.
        guard ContinuousClock.now < deadline, !Task.isCancelled else { return try await condition() }
        try? await Task.sleep(for: .milliseconds(5))
    }
}
