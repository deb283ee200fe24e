import Synchronization

/// The open scan streams of one radio. Sightings are yielded from whichever thread decoded
/// them, without hopping through the radio's actor.
package final class Subscribers: Sendable {
    package typealias Continuation = AsyncThrowingStream<RadioEvent, any Error>.Continuation
    private struct State {
        var streams: [Int: Continuation] = [:]
        var nextID = 0
        var dropped = 0
    }
    private let state = Mutex(State())

    package init() {}
    /// Events each stream holds for a slow consumer before dropping the oldest.
    package static let bufferSize = 16_384

    package func make(onLast: @escaping @Sendable () -> Void) -> AsyncThrowingStream<RadioEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: RadioEvent.self,
                                                                    bufferingPolicy: .bufferingNewest(Self.bufferSize))
        let id = state.withLock { state in
            state.nextID += 1
            state.streams[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let empty = self.state.withLock { state in
                state.streams[id] = nil
                return state.streams.isEmpty
            }
            if empty { onLast() }
        }
        return stream
    }

    package var isEmpty: Bool { state.withLock { $0.streams.isEmpty } }

    /// Events dropped because a consumer fell `bufferSize` events behind.
    package var droppedCount: Int { state.withLock { $0.dropped } }

    package func yield(_ event: RadioEvent) {
        state.withLock { state in
            for continuation in state.streams.values {
                if case .dropped = continuation.yield(event) { state.dropped += 1 }
            }
        }
    }

    package func finishAll() {
        let streams = state.withLock { state in
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for continuation in streams { continuation.finish() }
    }
}
