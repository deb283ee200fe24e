import Foundation
import HummingbirdTesting
import NIOCore
@testable import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 39: an event is encoded once, and that one frame is what every stream that gets it
/// writes (no per-stream encoding or copy for the usual one-event batch).
@Suite("One event frame for every stream", .timeLimit(.minutes(2)))
struct SharedEventFrameTests {
    /// Every listener of the event, by its ride and of all rides, is handed the same bytes in
    /// the same storage: the hub encoded it once.
    @Test(arguments: StoreKind.available)
    func everyListenerGetsTheOneEncodedFrame(_ kind: StoreKind) async throws {
        let world = try await World.make(kind)
        var configuration = EventHub.Configuration.testing
        configuration.heartbeatInterval = .seconds(60)
        let hub = EventHub(store: world.store, configuration: configuration, logger: .quiet)
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let ride = try await world.acceptedRide()
        var listeners: [EventHub.Subscription] = []
        for n in 0..<6 { listeners.append(try await hub.subscribe(n.isMultiple(of: 2) ? .all : .ride(ride.id))) }
        _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
        var frames: [ByteBuffer] = []
        var event: RideEvent?
        for listener in listeners {
            var messages = listener.messages.makeAsyncIterator()
            while let message = await messages.next() {
                if case .event(let got, let frame) = message, got.rideID == ride.id, got.state == .arrived {
                    frames.append(frame)
                    event = got
                    break
                }
            }
            listener.end()
        }
        let arrived = try #require(event)
        try #require(frames.count == listeners.count)
        #expect(Set(frames.map { Array($0.readableBytesView) }) == [Array(EventStream.frame(arrived).readableBytesView)])
        let storage = Set(frames.map { $0.withUnsafeReadableBytes { Int(bitPattern: $0.baseAddress) } })
        #expect(storage.count == 1, "the event was encoded \(storage.count) times for \(frames.count) listeners")
        await world.close()
    }

    /// Over HTTP: the passenger's and the driver's ride streams and two dispatchers' all-rides
    /// streams read the event's block byte for byte alike.
    @Test(arguments: StoreKind.available)
    func everyStreamReadsTheEventByteIdentical(_ kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.live) { client in
            let port = try #require(client.port)
            let streams = [
                try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.passenger.token),
                try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.driver.token),
                try await SSEReader.open(port: port, path: "/v1/events", token: world.dispatcher.token),
                try await SSEReader.open(port: port, path: "/v1/events", token: world.dispatcher.token),
            ]
            #expect(try await client.call(.post, "/v1/rides/\(ride.id)/arrive", as: world.driver).status.code < 300)
            var blocks: [SSEMessage] = []
            for stream in streams {
                var block: SSEMessage?
                for _ in 0..<1200 where block == nil {
                    block = await stream.events.first { $0.json["state"] as? String == "arrived" }
                    if block == nil { try await Task.sleep(for: .milliseconds(50)) }
                }
                blocks.append(try #require(block, "a stream never got the arrival"))
            }
            #expect(Set(blocks.map { [$0.id, $0.event, $0.data] }).count == 1)
        }
        await world.close()
    }
}
