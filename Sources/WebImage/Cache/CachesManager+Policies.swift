extension CachesManager {
    /// How an operation is spread over the caches (SDWebImage's
    /// `SDImageCachesManagerOperationPolicy`).
    public enum Policy: String, Sendable, CaseIterable {
        /// Only the cache added last.
        case highestOnly
        /// Only the cache added first.
        case lowestOnly
        /// All caches at once; a query or containment check returns the first hit to
        /// arrive.
        case concurrent
        /// One cache after another, highest priority first; a query or containment check
        /// stops at the first hit.
        case serial
    }

    /// The policy of each kind of operation: SDWebImage's five `…OperationPolicy`
    /// properties as one value, so that a manager is configured, compared or copied in one
    /// assignment.
    ///
    /// ```swift
    /// var policies = CachesManager.Policies()
    /// policies.query = .concurrent   // ask every cache at once, take the first hit
    /// policies.store = .serial       // write to every cache
    /// manager.policies = policies
    /// ```
    public struct Policies: Sendable, Equatable {
        /// Queries. Default ``Policy/serial``: the highest-priority cache first, stopping
        /// at the first hit.
        public var query: Policy
        /// Stores. Default ``Policy/highestOnly``: a small front cache fills, a shared
        /// one behind it is not written twice.
        public var store: Policy
        /// Removals. Default ``Policy/concurrent``: a removed image is gone from every
        /// level.
        public var remove: Policy
        /// Containment checks. Default ``Policy/serial``, as queries.
        public var contains: Policy
        /// Clearing. Default ``Policy/concurrent``: every level at once.
        public var clear: Policy

        /// SDWebImage's defaults, or the policies given.
        public init(
            query: Policy = .serial,
            store: Policy = .highestOnly,
            remove: Policy = .concurrent,
            contains: Policy = .serial,
            clear: Policy = .concurrent
        ) {
            self.query = query
            self.store = store
            self.remove = remove
            self.contains = contains
            self.clear = clear
        }
    }
}
