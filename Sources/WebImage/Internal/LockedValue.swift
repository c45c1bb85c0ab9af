import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `Synchronization.Mutex` whose hand-over the thread sanitizer can see.
///
/// Every lock in the package is one of these rather than a bare `Mutex`, because on Linux the
/// thread sanitizer cannot see a bare `Mutex` and reports races that cannot happen:
/// - `Mutex`'s fast path is an acquiring/releasing compare-and-swap compiled into our code, which
///   the sanitizer instruments. Its contended path (`_lockSlow`/`_unlockSlow`) lives in
///   `libswiftSynchronization.so`, which is not instrumented, and hands ownership over with
///   `FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI`: the kernel writes the lock word, so the sanitizer
///   sees no release in the thread that unlocked and no acquire in the thread that then locks.
/// - So whenever two threads contend, it loses the happens-before edge and reports the state
///   the lock guards as raced. Two threads adding 200,000 each to a counter inside
///   `Mutex.withLock` end at exactly 400,000 every time, yet the sanitizer reports a race;
///   the same program with `pthread_mutex_t`, or with this type, reports none, and a real
///   race (one thread leaving the lock out) is still reported with this type
///   (`scripts/check-tsan-locks.sh` builds and checks those programs; `make test-tsan`
///   runs it).
///
/// Inside the lock this type calls the sanitizer's own `__tsan_acquire` / `__tsan_release` on
/// the mutex's address: exactly the edge the uninstrumented code hides, and nothing more, so
/// an access outside the lock is still reported. Outside a sanitizer build the two hooks are
/// not linked, the lookups find nothing, and each lock pays one predictable branch.
@usableFromInline
package struct LockedValue<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>

    /// Puts `initialValue` behind the lock.
    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with exclusive access to the value, as `Mutex.withLock` does.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            guard let hooks = ThreadSanitizerHooks.shared else { return try body(&value) }
            let address = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
            hooks.acquire(address)
            defer { hooks.release(address) }
            return try body(&value)
        }
    }
}

/// The thread sanitizer's annotation entry points, found at run time in the sanitizer's
/// runtime when the process was built with `-sanitize=thread`, and `nil` otherwise.
@usableFromInline
package struct ThreadSanitizerHooks: Sendable {
    @usableFromInline typealias Hook = @convention(c) (UnsafeRawPointer?) -> Void

    /// Tells the sanitizer this thread now owns what was released at the address.
    @usableFromInline let acquire: Hook
    /// Tells the sanitizer this thread's writes so far are published at the address.
    @usableFromInline let release: Hook

    /// Both hooks, or `nil` when the sanitizer's runtime is not in the process.
    @usableFromInline static let shared: ThreadSanitizerHooks? = {
        // RTLD_DEFAULT (a null handle) searches the executable and every library loaded; the
        // sanitizer runtime exports these symbols from the executable when it is linked in.
        guard let acquire = dlsym(nil, "__tsan_acquire"),
              let release = dlsym(nil, "__tsan_release")
        else { return nil }
        return ThreadSanitizerHooks(
            acquire: unsafeBitCast(acquire, to: Hook.self),
            release: unsafeBitCast(release, to: Hook.self)
        )
    }()
}
