import Foundation
import HummingbirdTesting
import Logging
import RideServer
import RideStore
import RideBeaconTesting
import Testing

@Suite("Live events (SSE)", .timeLimit(.minutes(2)))
struct EventStreamTests {
    @Test(arguments: StoreKind.available)
    func rideStreamReplaysHistoryThenGoesLive(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.live) { client in
            let port = try #require(client.port)
            let stream = try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.passenger.token)
            defer { stream.close() }
            #expect(stream.status == 200 && stream.contentType?.hasPrefix("text/event-stream") == true)
            let history = await stream.wait { $0.filter { $0.event != nil }.count >= 2 }.filter { $0.event != nil }
            #expect(history.map(\.event) == ["requested", "accepted"])

            _ = try await client.call(.post, "/v1/rides/\(ride.id)/arrive", as: world.driver)
            let live = await stream.wait { $0.contains { $0.event == "arrived" } }
            let arrived = try #require(live.first { $0.event == "arrived" })
            let stored = try await world.store.events(rideID: ride.id, after: 0)
            #expect(arrived.eventID == stored.last?.id)
            #expect(arrived.json["rideId"] as? String == ride.id && arrived.json["state"] as? String == "arrived")
            #expect(arrived.json["at"] is String && arrived.json["key"] == nil)

            // Idle streams get heartbeat comments (300 ms in tests, 15 s in production).
            let beats = await stream.wait { $0.contains { $0.comment == "heartbeat" } }
            #expect(beats.contains { $0.comment == "heartbeat" })
        }
    }

    /// A client that reconnects with Last-Event-ID gets exactly what it missed: nothing twice,
    /// nothing lost, then the live feed.
    @Test(arguments: StoreKind.available)
    func lastEventIDResumesWithExactlyTheMissedEvents(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        let seen = try await world.store.events(rideID: ride.id, after: 0)
        _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
        _ = try await world.store.transition(rideID: ride.id, to: .confirmed, by: world.passenger.id, detail: nil, idempotency: nil)
        let missed = try await world.store.events(rideID: ride.id, after: seen[1].id)
        try await world.app().test(.live) { client in
            let port = try #require(client.port)
            let resumed = try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.driver.token,
                                                   headers: ["Last-Event-ID": "\(seen[1].id)"])
            defer { resumed.close() }
            _ = await resumed.wait { $0.filter { $0.event != nil }.count >= 2 }
            _ = try await client.call(.post, "/v1/rides/\(ride.id)/complete", as: world.driver)
            let events = await resumed.wait { $0.filter { $0.event != nil }.count >= 3 }.filter { $0.event != nil }
            let completed = try await world.store.events(rideID: ride.id, after: missed[1].id)
            #expect(events.compactMap(\.eventID) == (missed + completed).map(\.id))
            #expect(events.map(\.event) == ["arrived", "confirmed", "completed"])

            // `?after=` does the same for clients that cannot set headers.
            let byQuery = try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events?after=\(missed[0].id)", token: world.passenger.token)
            defer { byQuery.close() }
            let fromQuery = await byQuery.wait { $0.filter { $0.event != nil }.count >= 2 }.filter { $0.event != nil }
            #expect(fromQuery.map(\.event) == ["confirmed", "completed"])
        }
    }

    @Test(arguments: StoreKind.available)
    func dispatcherStreamCoversEveryRide(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let before = try await world.acceptedRide()
        try await world.app().test(.live) { client in
            let port = try #require(client.port)
            let live = try await SSEReader.open(port: port, path: "/v1/events", token: world.dispatcher.token)
            defer { live.close() }
            _ = await live.wait { $0.contains { $0.retry != nil } }
            let first = try await world.acceptedRide()
            _ = try await client.call(.post, "/v1/ride-requests", as: world.otherPassenger, json: Bodies.rideRequest)
            _ = try await client.call(.post, "/v1/rides/\(before.id)/arrive", as: world.driver)
            let events = await live.wait { $0.contains { $0.event == "arrived" } }.filter { $0.event != nil }
            // No history without a resume point: only what happened after connecting.
            #expect(Set(events.compactMap { $0.json["rideId"] as? String }) == [first.id, before.id])
            #expect(events.map(\.event) == ["requested", "accepted", "requested", "arrived"])
            // A new request reaches dispatchers before any driver takes it: request id, no ride id.
            let newRequest = events[2].json
            #expect(newRequest["rideId"] == nil && newRequest["requestId"] as? String != nil && newRequest["requestId"] as? String != first.requestID)

            let replay = try await SSEReader.open(port: port, path: "/v1/events?after=0", token: world.dispatcher.token)
            defer { replay.close() }
            let all = await replay.wait { $0.filter { $0.event != nil }.count >= 6 }.filter { $0.event != nil }
            #expect(all.compactMap(\.eventID) == (try await world.store.events(after: 0, limit: 100)).map(\.id))
        }
    }

    /// A listener that stops reading is cut off at its buffer limit instead of holding events
    /// forever; what it got is a gap-free prefix it can resume from.
    @Test func slowListenersAreCutOff() async throws {
        let world = try await World.make(.sqlite)
        var configuration = EventHub.Configuration.testing
        configuration.listenerBufferLimit = 3
        configuration.heartbeatInterval = .seconds(60)
        let hub = EventHub(store: world.store, configuration: configuration, logger: .quiet)
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let subscription = try await hub.subscribe(.all)
        // A second listener keeps reading, one ride (two events, within its limit) at a time.
        let reader = try await hub.subscribe(.all)
        var readerMessages = reader.messages.makeAsyncIterator()
        var readerEvents: [RideEvent] = []
        for _ in 0..<3 {
            _ = try await world.acceptedRide()
            hub.wake()
            let wanted = readerEvents.count + 2
            while readerEvents.count < wanted, let message = await readerMessages.next() {
                guard case .event(let event, let frame) = message else { continue }
                // The one frame encoded for all listeners is the event's SSE block.
                let block = frame.getString(at: frame.readerIndex, length: frame.readableBytes) ?? ""
                #expect(block.hasPrefix("id: \(event.id)\nevent: \(event.state.rawValue)\ndata: {") && block.hasSuffix("}\n\n"))
                readerEvents.append(event)
            }
        }
        // The listener that read nothing was given up on; the reader was not held back by it.
        #expect(await eventually { await hub.cutOffListeners == 1 })
        let stored = try await world.store.events(after: 0, limit: 10)
        #expect(readerEvents == stored)
        var received: [RideEvent] = []
        var last: EventHub.Message?
        for await message in subscription.messages {
            if case .event(let event, _) = message { received.append(event) }
            last = message
        }
        #expect(received == Array(stored.prefix(3)))
        // It is told why, with the code that says "resume", unlike a revoked token's.
        #expect(last == .ended(.tooSlow))
        reader.end()
        #expect(await eventually { await hub.listenerCount == 0 })
        #expect(await hub.cutOffListeners == 1)
    }

    /// A ride's listener gets that ride's events only, an all-rides listener every event, and
    /// an ended listener is forgotten: the hub finds an event's listeners by its ride (issue 28).
    @Test func eachListenerGetsWhatItsScopeWants() async throws {
        let world = try await World.make(.sqlite)
        var configuration = EventHub.Configuration.testing
        configuration.heartbeatInterval = .seconds(60)
        let hub = EventHub(store: world.store, configuration: configuration, logger: .quiet)
        let running = Task { try await hub.run() }
        defer { running.cancel() }
        let first = try await world.acceptedRide()
        let second = try await world.acceptedRide()
        let firstListener = try await hub.subscribe(.ride(first.id))
        let secondListener = try await hub.subscribe(.ride(second.id))
        let everyone = try await hub.subscribe(.all)
        for ride in [first, second] {
            _ = try await world.store.transition(rideID: ride.id, to: .arrived, by: world.driver.id, detail: nil, idempotency: nil)
        }
        hub.wake()
        var all = everyone.messages.makeAsyncIterator()
        var allEvents: [RideEvent] = []
        while allEvents.count < 2, let message = await all.next() {
            if case .event(let event, _) = message { allEvents.append(event) }
        }
        #expect(allEvents.map(\.rideID) == [first.id, second.id] && allEvents.map(\.state) == [.arrived, .arrived])
        // The hub hands an event to all its listeners without suspending: once this call is
        // answered, both ride listeners have been offered both events.
        #expect(await hub.listenerCount == 3)
        for (listener, ride) in [(firstListener, first), (secondListener, second)] {
            listener.end()
            var received: [RideEvent] = []
            for await message in listener.messages {
                if case .event(let event, _) = message { received.append(event) }
            }
            #expect(received.map(\.rideID) == [ride.id] && received.map(\.state) == [.arrived])
        }
        #expect(await eventually { await hub.listenerCount == 1 })
        // Later events still reach the remaining listener.
        _ = try await world.store.transition(rideID: first.id, to: .cancelled, by: world.driver.id, detail: "test", idempotency: nil)
        hub.wake()
        var later: RideEvent?
        while later == nil, let message = await all.next() {
            if case .event(let event, _) = message { later = event }
        }
        #expect(later?.rideID == first.id && later?.state == .cancelled)
        everyone.end()
        #expect(await eventually { await hub.listenerCount == 0 })
    }

    /// SIGTERM with streams open: they end, so the server can finish and exit.
    @Test func gracefulShutdownEndsOpenStreams() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        let stream = try await world.app().test(.live) { client in
            let stream = try await SSEReader.open(port: try #require(client.port), path: "/v1/rides/\(ride.id)/events", token: world.passenger.token)
            _ = await stream.wait { $0.contains { $0.event == "accepted" } }
            return stream
        }
        // test(.live) returned, so the service group shut down despite the open stream.
        #expect(await stream.waitForEnd())
    }
}
