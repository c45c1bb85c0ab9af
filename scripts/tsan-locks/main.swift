// The thread sanitizer's view of our locks, as three programs in one (the first argument
// picks): two threads each add 200,000 to a counter that a lock guards, or, in the third,
// one thread leaves the lock out. scripts/check-tsan-locks.sh builds this with
// `-sanitize=thread` beside Sources/WebImage/Internal/LockedValue.swift and checks what
// the sanitizer says of each; LockedValue's doc comment says why it matters.
import Foundation
import Synchronization

/// The guarded counter, a class so both threads reach the same storage.
final class Counter: @unchecked Sendable {  // Guarded by the lock in each program (or, on purpose, not).
    var value = 0
}

let rounds = 200_000
let counter = Counter()

/// Runs `work` on two threads at once and waits for both.
func onTwoThreads(_ work: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    for index in 0..<2 {
        Thread {
            work(index)
            done.signal()
        }.start()
    }
    done.wait()
    done.wait()
}

switch CommandLine.arguments.dropFirst().first {
case "bare-mutex":
    let mutex = Mutex(())
    onTwoThreads { _ in for _ in 0..<rounds { mutex.withLock { _ in counter.value += 1 } } }
    print(mutex.withLock { _ in counter.value })
case "locked-value":
    let lock = LockedValue(())
    onTwoThreads { _ in for _ in 0..<rounds { lock.withLock { _ in counter.value += 1 } } }
    print(lock.withLock { _ in counter.value })
case "locked-value-one-thread-unlocked":
    let lock = LockedValue(())
    onTwoThreads { index in
        for _ in 0..<rounds {
            if index == 0 { lock.withLock { _ in counter.value += 1 } } else { counter.value += 1 }
        }
    }
    print(lock.withLock { _ in counter.value })
default:
    print("usage: tsan-locks bare-mutex|locked-value|locked-value-one-thread-unlocked")
    exit(64)
}
