import Foundation

/// One listener's bounded queue of hub messages.
///
/// The hub offers without ever waiting, so a slow reader cannot slow the hub (or the writes
/// that wake it); past `limit` queued messages the reader is cut off instead. The reader takes
/// everything queued at once, so a stream that fell behind catches up with one socket write
/// per batch rather than one per event.
final class ListenerQueue: @unchecked Sendable {
    enum Offer { case enqueued, overflowed, terminated }

    private let lock = NSLock()
    private let limit: Int
    private var pending: [EventHub.Message] = []
    private var waiter: CheckedContinuation<[EventHub.Message], Never>?
    private var finished = false
    private var onTermination: (@Sendable () -> Void)?

    init(limit: Int) {
        self.limit = limit
    }

    /// Called once, when the queue finishes (either side).
    func setOnTermination(_ action: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock { () -> Bool in
            if finished { return true }
            onTermination = action
            return false
        }
        if runNow { action() }
    }

    /// Queues `message`; on overflow the queue is left as it was (the caller decides).
    func offer(_ message: EventHub.Message) -> Offer {
        let (outcome, resumed) = lock.withLock { () -> (Offer, CheckedContinuation<[EventHub.Message], Never>?) in
            guard !finished else { return (.terminated, nil) }
            guard pending.count < limit else { return (.overflowed, nil) }
            pending.append(message)
            return (.enqueued, takeWaiterWithPending())
        }
        resumed?.resume(returning: drain())
        return outcome
    }

    /// Ends the queue after `last` (if any), which is queued even when the queue is full: the
    /// reader learns why its stream ends. What is already queued is still read.
    func finish(last: EventHub.Message? = nil) {
        let (resumed, action) = lock.withLock { () -> (CheckedContinuation<[EventHub.Message], Never>?, (@Sendable () -> Void)?) in
            guard !finished else { return (nil, nil) }
            if let last { pending.append(last) }
            finished = true
            let action = onTermination
            onTermination = nil
            let resumed = waiter
            waiter = nil
            return (resumed, action)
        }
        resumed?.resume(returning: drain())
        action?()
    }

    /// Waits for at least one message and returns all queued; empty once finished and drained.
    func next() async -> [EventHub.Message] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = lock.withLock { () -> Bool in
                    if !pending.isEmpty || finished { return true }
                    waiter = continuation
                    return false
                }
                if ready { continuation.resume(returning: drain()) }
            }
        } onCancel: {
            finish()
        }
    }

    /// Whatever is queued now, without waiting (possibly nothing).
    func takeQueued() -> [EventHub.Message] { drain() }

    private func takeWaiterWithPending() -> CheckedContinuation<[EventHub.Message], Never>? {
        let resumed = waiter
        waiter = nil
        return resumed
    }

    private func drain() -> [EventHub.Message] {
        lock.withLock {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            return batch
        }
    }
}

extension EventHub {
    /// A listener's messages one at a time (in-process listeners, tests); streams read
    /// `nextBatch()` instead.
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = Message
        let queue: ListenerQueue

        public struct AsyncIterator: AsyncIteratorProtocol {
            let queue: ListenerQueue
            var buffered: [Message] = []
            var index = 0

            public mutating func next() async -> Message? {
                if index == buffered.count {
                    buffered = await queue.next()
                    index = 0
                    if buffered.isEmpty { return nil }
                }
                defer { index += 1 }
                return buffered[index]
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue) }
    }
}
