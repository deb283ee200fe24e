import Foundation
import NIOCore
import PostgresNIO

/// Runs `body` but answers by `limit` at the latest: on time-out it throws `timedOut()` and
/// leaves `body` cancelled behind it. Unlike a task group this does not wait for `body` to
/// notice the cancellation, which a query on a black-holed connection may not do for minutes.
///
/// The timer runs on an event loop thread, not as a task: on a saturated cooperative pool a
/// sleeping task wakes only when a thread frees up, which stretched the 500 ms outage
/// deadline to 32 s under load (issue 14). `timedOut` is called on that event loop.
func withDeadline<T: Sendable>(
    _ limit: Duration,
    on timerLoop: any EventLoop = PostgresClient.defaultEventLoopGroup.any(),
    timedOut: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = Race<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let work = Task {
                do { race.settle(.success(try await body())) } catch { race.settle(.failure(error)) }
            }
            let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
            let timer = timerLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                race.settle(.failure(timedOut()))
            }
            // Whoever wins, neither the loser nor the timer keeps running.
            race.start(continuation) {
                work.cancel()
                timer.cancel()
            }
        }
    } onCancel: {
        race.settle(.failure(CancellationError()))
    }
}

/// Resumes a continuation with the first result settled; later ones are dropped.
private final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var result: Result<T, any Error>?
    private var cleanup: (@Sendable () -> Void)?
    private var finished = false

    func start(_ continuation: CheckedContinuation<T, any Error>, cleanup: @escaping @Sendable () -> Void) {
        lock.lock()
        self.continuation = continuation
        self.cleanup = cleanup
        lock.unlock()
        finishIfSettled()
    }

    func settle(_ outcome: Result<T, any Error>) {
        lock.lock()
        if result == nil { result = outcome }
        lock.unlock()
        finishIfSettled()
    }

    private func finishIfSettled() {
        lock.lock()
        guard !finished, let result, let continuation, let cleanup else { lock.unlock(); return }
        finished = true
        lock.unlock()
        continuation.resume(with: result)
        cleanup()
    }
}
