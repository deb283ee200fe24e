import Foundation
import NIOConcurrencyHelpers
import RideClient
import RideBeaconTesting
import Testing

/// Live events as typed values: history first, then live changes; a broken connection is
/// announced, resumed with Last-Event-ID, and loses or repeats nothing.
@Suite("RideServiceClient live events", .timeLimit(.minutes(2)))
struct EventStreamTests {
    /// Collects a stream's updates in the background; tests wait for what they need.
    final class Collector: Sendable {
        private let updates = NIOLockedValueBox<[LiveUpdate]>([])
        private let ending = NIOLockedValueBox<RideClientError??>(nil)
        private let task: Task<Void, Never>

        init(_ stream: AsyncThrowingStream<LiveUpdate, any Error>) {
            let updates = self.updates, ending = self.ending
            task = Task {
                do {
                    for try await update in stream { updates.withLockedValue { $0.append(update) } }
                    ending.withLockedValue { $0 = .some(nil) }
                } catch {
                    ending.withLockedValue { $0 = .some(error as? RideClientError) }
                }
            }
        }

        var all: [LiveUpdate] { updates.withLockedValue { $0 } }
        var events: [RideEvent] { all.compactMap(\.event) }
        var ended: RideClientError?? { ending.withLockedValue { $0 } }

        func wait(until condition: ([LiveUpdate]) -> Bool) async -> Bool {
            for _ in 0..<1500 {
                if condition(all) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        func cancel() { task.cancel() }
    }

    @Test func historyThenLiveThenResumeAfterACutWithoutLossOrRepeats() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            let relay = try await TCPRelay(toPort: port)
            var configuration = RideServiceClient.Configuration()
            configuration.streamRetry = RetryPolicy(maxAttempts: nil, initialDelay: .milliseconds(300), maxDelay: .milliseconds(300))
            try await withRideServiceClient(server: "http://127.0.0.1:\(port)", token: world.passenger.token) { passenger in
            try await withRideServiceClient(server: "http://127.0.0.1:\(port)", token: world.driver.token) { driver in
            try await withRideServiceClient(server: "http://127.0.0.1:\(relay.port)", token: world.passenger.token,
                                            configuration: configuration) { following in
                let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
                let ride = try await driver.acceptRideRequest(request.id)

                let stream = Collector(following.rideEvents(ride.id))
                #expect(await stream.wait { $0.compactMap(\.event).count == 2 })
                #expect(stream.events.map(\.state) == [.requested, .accepted])
                #expect(stream.all.first == .connected)

                _ = try await driver.arrive(ride.id)
                #expect(await stream.wait { $0.compactMap(\.event).count == 3 })

                // Break the connection, and change the ride while the follower is away.
                await relay.cutConnections()
                #expect(await stream.wait { $0.contains { if case .interrupted = $0 { true } else { false } } })
                try await world.confirmAsOperator(rideID: ride.id)
                #expect(await stream.wait { $0.compactMap(\.event).count == 4 })
                _ = try await driver.complete(ride.id)
                #expect(await stream.wait { $0.compactMap(\.event).count == 5 })

                let events = stream.events
                #expect(events.map(\.state) == [.requested, .accepted, .arrived, .confirmed, .completed])
                #expect(events.map(\.sequence) == [1, 2, 3, 4, 5], "no event lost or repeated across the reconnect")
                #expect(events.dropFirst().allSatisfy { $0.rideID == ride.id })
                #expect(Set(events.map(\.id)).count == 5)
                #expect(stream.all.filter { $0 == .connected }.count >= 2, "the stream reconnected")
                stream.cancel()
            }
            }
            }
            await relay.stop()
        }
        await world.close()
    }

    @Test func resumingAfterAnEventIdStartsRightAfterIt() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            let server = "http://127.0.0.1:\(port)"
            try await withRideServiceClient(server: server, token: world.passenger.token) { passenger in
            try await withRideServiceClient(server: server, token: world.driver.token) { driver in
            try await withRideServiceClient(server: server, token: world.dispatcher.token) { dispatcher in
                let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
                let ride = try await driver.acceptRideRequest(request.id)
                _ = try await driver.arrive(ride.id)

                let full = Collector(passenger.rideEvents(ride.id))
                #expect(await full.wait { $0.compactMap(\.event).count == 3 })
                let first = try #require(full.events.first)
                full.cancel()

                let resumed = Collector(passenger.rideEvents(ride.id, after: first.id))
                #expect(await resumed.wait { $0.compactMap(\.event).count == 2 })
                #expect(resumed.events.map(\.state) == [.accepted, .arrived])
                resumed.cancel()

                // One ride at a time: this one ends before Ana asks again.
                _ = try await passenger.cancelRide(ride.id, reason: "test")
                // The dispatcher's stream starts now: only what happens after it connects.
                let board = Collector(dispatcher.allEvents())
                #expect(await board.wait { $0.contains(.connected) })
                let next = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "C", dropoff: "D"))
                #expect(await board.wait { $0.compactMap(\.event).contains { $0.requestID == next.id } })
                #expect(board.events.map(\.state) == [.requested] && board.events.first?.rideID == nil)
                board.cancel()
            }
            }
            }
        }
        await world.close()
    }

    @Test func shuttingTheClientDownEndsItsStreamsQuietly() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            let client = try RideServiceClient(server: "http://127.0.0.1:\(port)", token: world.dispatcher.token)
            let stream = Collector(client.allEvents())
            #expect(await stream.wait { $0.contains(.connected) })
            await client.shutdown()
            for _ in 0..<500 where stream.ended == nil { try await Task.sleep(for: .milliseconds(20)) }
            #expect(stream.ended == .some(nil), "ended without an error, and without reconnecting forever")
            #expect(!stream.all.contains { if case .interrupted = $0 { true } else { false } })
        }
        await world.close()
    }

    @Test func aRefusedStreamEndsWithTheServersReason() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            try await withRideServiceClient(server: "http://127.0.0.1:\(port)", token: world.otherPassenger.token) { stranger in
                let stream = Collector(stranger.rideEvents("not-a-ride"))
                for _ in 0..<500 where stream.ended == nil { try await Task.sleep(for: .milliseconds(20)) }
                guard case .some(.some(.rejected(let problem))) = stream.ended else {
                    Issue.record("expected the stream to end with a 404, got \(String(describing: stream.ended))")
                    return
                }
                #expect(problem.status == 404 && problem.code == .notFound)
            }
        }
        await world.close()
    }
}


extension EventStreamTests {
    /// A revoked token's stream ends with the server's reason and is not reconnected (a
    /// reconnect could only get 401). Revoked straight in the store, as `admin revoke-tokens`
    /// does from another process: the server's periodic re-check (1 s on SQLite) finds it.
    @Test func aRevokedTokensStreamEndsWithTheReasonAndIsNotResumed() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            var configuration = RideServiceClient.Configuration()
            configuration.streamRetry = RetryPolicy(maxAttempts: nil, initialDelay: .milliseconds(100), maxDelay: .milliseconds(100))
            try await withRideServiceClient(server: "http://127.0.0.1:\(port)", token: world.driver.token) { driver in
            try await withRideServiceClient(server: "http://127.0.0.1:\(port)", token: world.passenger.token, configuration: configuration) { passenger in
                let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
                let ride = try await driver.acceptRideRequest(request.id)
                let stream = Collector(passenger.rideEvents(ride.id))
                #expect(await stream.wait { $0.compactMap(\.event).count == 2 })
                _ = try await world.store.revokeTokens(accountID: world.passenger.id)
                // Product target: ended within 1 s; generous here for loaded machines.
                #expect(await stream.wait { _ in stream.ended != nil })
                guard case .some(.some(.rejected(let problem))) = stream.ended else {
                    Issue.record("ended with \(String(describing: stream.ended))")
                    return
                }
                #expect(problem.code == .tokenRevoked)
                #expect(!stream.all.contains { if case .interrupted = $0 { true } else { false } }, "not retried")
            }
            }
        }
    }
}
