import NIOCore

extension Channel {
    /// Runs `body`, then closes the channel however `body` ended: the listening socket of a
    /// test server lives exactly as long as the test's use of it.
    func closingAfter<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            try? await close()
            return value
        } catch {
            try? await close()
            throw error
        }
    }
}
