import NIOCore
import NIOEmbedded
import RideBeaconTesting
import Testing
@testable import RideServer

/// All-rides streams linger on one shared tick (`LingerTick`, issue 39): one event-loop timer
/// for every stream waiting, not a sleep each; a stream's batch takes in what arrived meanwhile.
@Suite struct LingerTickTests {
    @Test func manyWaitersShareOneTimer() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let tick = LingerTick(interval: .milliseconds(100), loop: loop)
        let streams = 150
        let resumed = try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<streams { group.addTask { await tick.wait() } }
            #expect(await eventually { tick.waiting == streams })
            #expect(tick.ticksFired == 0)
            await loop.advanceTime(by: .milliseconds(99))
            #expect(tick.waiting == streams, "a waiter left before its tick")
            await loop.advanceTime(by: .milliseconds(1))
            var count = 0
            for try await _ in group { count += 1 }
            return count
        }
        #expect(resumed == streams)
        #expect(tick.ticksFired == 1, "one timer for all \(streams) waiters")
        // The next waiter arms a new tick.
        async let again: Void = tick.wait()
        #expect(await eventually { tick.waiting == 1 })
        await loop.advanceTime(by: .milliseconds(100))
        await again
        #expect(tick.ticksFired == 2)
        try await loop.shutdownGracefully()
    }

    @Test func anAllRidesBatchTakesInWhatArrivedWhileItLingered() async throws {
        let loop = NIOAsyncTestingEventLoop()
        let queue = ListenerQueue(limit: 16)
        let subscription = EventHub.Subscription(queue: queue, linger: LingerTick(interval: .milliseconds(100), loop: loop))
        _ = queue.offer(.heartbeat)
        async let batch = subscription.nextBatch()
        #expect(await eventually { subscription.linger?.waiting == 1 })
        _ = queue.offer(.heartbeat)
        _ = queue.offer(.heartbeat)
        await loop.advanceTime(by: .milliseconds(100))
        #expect(await batch.count == 3, "the two messages offered during the linger went out with the first")
        // A stream that is ending does not linger.
        queue.finish(last: .ended(.tokenRevoked))
        #expect(await subscription.nextBatch().count == 1)
        try await loop.shutdownGracefully()
    }
}
