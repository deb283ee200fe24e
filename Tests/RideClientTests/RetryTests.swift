import Foundation
import RideClient
import RideStore
import RideBeaconTesting
import Testing

/// A write whose response is lost is retried with the same Idempotency-Key: the server does
/// the work once and the client gets the first answer.
@Suite("RideServiceClient idempotent retries", .timeLimit(.minutes(2)))
struct RetryTests {
    @Test func aLostResponseIsRetriedAndTheWriteHappensOnce() async throws {
        let world = try await ServerWorld.make()
        try await withPassengerBehindARelay(world) { passenger, relay, retries in
            relay.dropResponses(1)
            let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
            #expect(retries.value == 1, "the first response was lost, so exactly one retry")
            #expect(try await world.rideRequestCount(passengerID: world.passenger.id) == 1, "the server created one request, not two")
            #expect(try await passenger.allRideRequests().map(\.id) == [request.id])

            // Without a retry budget the same loss is reported, typed, and still changes nothing twice.
            relay.dropResponses(1)
            let key = IdempotencyKey()
            do {
                _ = try await passenger.cancelRideRequest(request.id, idempotencyKey: key)
            } catch let error as RideClientError {
                #expect(error.isRetryable)
            }
            // Retrying by hand with the same key returns the first success instead of a 409.
            let again = try await passenger.cancelRideRequest(request.id, idempotencyKey: key)
            #expect(again.status == .cancelled && again.id == request.id)
        }
        await world.close()
    }

    /// A message to the driver carries its own Idempotency-Key too: its lost answer is retried
    /// and the driver hears it once.
    @Test func aMessageWhoseAnswerWasLostIsRetriedAndSentOnce() async throws {
        let world = try await ServerWorld.make()
        let ride = try await world.acceptedRide()
        try await withPassengerBehindARelay(world) { passenger, relay, retries in
            relay.dropResponses(1)
            let sent = try await passenger.sendMessage(ride.id, NewPassengerMessage(text: "By the main door"))
            #expect(retries.value == 1, "the first response was lost, so exactly one retry")
            let messages = try await world.store.events(rideID: ride.id, after: 0).filter { $0.kind == .passengerMessage }
            #expect(messages.map(\.id) == [sent.eventID], "the server sent it once and answered the retry with it")
            // Each message has its own key: the same words again are a second message.
            let again = try await passenger.sendMessage(ride.id, NewPassengerMessage(text: "By the main door"))
            #expect(again.eventID != sent.eventID)
        }
        await world.close()
    }

    /// The passenger's client talking to the world's server through a relay that can lose
    /// answers, with three attempts per request; `retries` counts the client's retries.
    private func withPassengerBehindARelay(_ world: ServerWorld,
                                           _ body: @escaping @Sendable (RideServiceClient, TCPRelay, Counter) async throws -> Void) async throws {
        try await world.withServer { port in
            let relay = try await TCPRelay(toPort: port)
            let retries = Counter()
            var configuration = RideServiceClient.Configuration()
            configuration.retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(20), maxDelay: .milliseconds(50))
            configuration.onRetry = { _ in retries.increment() }
            try await withRideServiceClient(server: "http://127.0.0.1:\(relay.port)", token: world.passenger.token,
                                            configuration: configuration) { passenger in
                try await body(passenger, relay, retries)
            }
            await relay.stop()
        }
    }
}
