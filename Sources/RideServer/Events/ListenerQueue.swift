import Foundation
import Synchronization

/// One listener's bounded queue of hub messages.
///
/// The hub offers without ever waiting, so a slow reader cannot slow the hub (or the writes
/// that wake it); past `limit` queued messages the reader is cut off instead. The reader takes
/// everything queued at once, so a stream that fell behind catches up with one socket write
/// per batch rather than one per event.
final class ListenerQueue: Sendable {
    enum Offer { case enqueued, overflowed, terminated }

    private let limit: Int
    private struct State {
        var pending: [EventHub.Message] = []
        var waiter: CheckedContinuation<[EventHub.Message], Never>?
        var finished = false
        var onTermination: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Called once, when the queue finishes (either side).
    func setOnTermination(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.onTermination = action
            return false
        }
        if runNow { action() }
    }

    /// Queues `message`; on overflow the queue is left as it was (the caller decides).
    func offer(_ message: EventHub.Message) -> Offer {
        let (outcome, resumed) = state.withLock { state -> (Offer, CheckedContinuation<[EventHub.Message], Never>?) in
            guard !state.finished else { return (.terminated, nil) }
            guard state.pending.count < limit else { return (.overflowed, nil) }
            state.pending.append(message)
            let resumed = state.waiter
            state.waiter = nil
            return (.enqueued, resumed)
        }
        resumed?.resume(returning: drain())
        return outcome
    }

    /// Ends the queue after `last` (if any), which is queued even when the queue is full: the
    /// reader learns why its stream ends. What is already queued is still read.
    func finish(last: EventHub.Message? = nil) {
        let (resumed, action) = state.withLock { state -> (CheckedContinuation<[EventHub.Message], Never>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            if let last { state.pending.append(last) }
            state.finished = true
            let action = state.onTermination
            state.onTermination = nil
            let resumed = state.waiter
            state.waiter = nil
            return (resumed, action)
        }
        resumed?.resume(returning: drain())
        action?()
    }

    /// Waits for at least one message and returns all queued; empty once finished and drained.
    func next() async -> [EventHub.Message] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if !state.pending.isEmpty || state.finished { return true }
                    state.waiter = continuation
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

    private func drain() -> [EventHub.Message] {
        state.withLock { state in
            let batch = state.pending
            state.pending.removeAll(keepingCapacity: true)
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
