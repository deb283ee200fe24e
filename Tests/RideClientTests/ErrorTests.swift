import Foundation
import NIOConcurrencyHelpers
import RideClient
import RideBeaconTesting
import Testing

/// Every failure arrives typed: the server's code, message, field and state for 4xx; retryable
/// kinds for an unreachable or failing service.
@Suite("RideServiceClient errors", .timeLimit(.minutes(2)))
struct ErrorTests {
    static func problem(_ body: () async throws -> Void) async -> APIProblem? {
        do {
            try await body()
            return nil
        } catch let error as RideClientError {
            guard case .rejected(let problem) = error else { return nil }
            return problem
        } catch {
            return nil
        }
    }

    @Test func fourHundredsCarryTheServersCodeMessageFieldAndState() async throws {
        let world = try await ServerWorld.make()
        try await world.withServer { port in
            let server = "http://127.0.0.1:\(port)"
            try await withRideServiceClient(server: server, token: world.passenger.token) { passenger in
            try await withRideServiceClient(server: server, token: world.driver.token) { driver in
                let missing = await Self.problem { _ = try await passenger.ride("no-such-ride") }
                #expect(missing?.status == 404 && missing?.code == .notFound)

                let forbidden = await Self.problem { _ = try await passenger.acceptRideRequest("anything") }
                #expect(forbidden?.status == 403 && forbidden?.code == .forbidden)

                let blank = await Self.problem {
                    _ = try await passenger.createRideRequest(NewRideRequest(passengerName: "  ", pickup: "A", dropoff: "B"))
                }
                #expect(blank?.status == 400 && blank?.code == .invalidField && blank?.field == "passengerName")

                let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
                let ride = try await driver.acceptRideRequest(request.id)
                _ = try await driver.arrive(ride.id)
                let twice = await Self.problem { _ = try await driver.complete(ride.id) }
                #expect(twice?.status == 409 && twice?.code == .illegalTransition && twice?.state == .arrived)

                _ = try await passenger.cancelRide(ride.id)  // one ride at a time
                let key = IdempotencyKey()
                _ = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"), idempotencyKey: key)
                let reused = await Self.problem { _ = try await passenger.cancelRideRequest(request.id, idempotencyKey: key) }
                #expect(reused?.status == 422 && reused?.code == .idempotencyKeyReused)
            }
            }
            let stranger = try RideServiceClient(server: server, token: "rb_not-a-real-token")
            let unauthenticated = await Self.problem { _ = try await stranger.allRides() }
            #expect(unauthenticated?.status == 401 && unauthenticated?.code == .unauthenticated)
            #expect(unauthenticated.map { !$0.message.isEmpty } == true)
            await stranger.shutdown()
        }
        await world.close()
    }

    @Test func aClosedPortIsNotAnsweringAndRetriedBeforeGivingUp() async throws {
        let port = try await ClosedPort.make()
        let retries = Counter()
        var configuration = RideServiceClient.Configuration()
        configuration.retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        configuration.onRetry = { notice in
            #expect(notice.error.isRetryable)
            retries.increment()
        }
        let client = try RideServiceClient(server: "http://127.0.0.1:\(port)", token: "rb_x", configuration: configuration)
        do {
            _ = try await client.allRides()
            Issue.record("a closed port answered")
        } catch {
            guard case .notAnswering = error else { Issue.record("expected notAnswering, got \(error)"); return }
            #expect(error.isRetryable && error.nothingSent)
        }
        #expect(retries.value == 2, "3 attempts are 2 retries")
        await client.shutdown()
    }

    /// Issue 25: a down server is told after one connect timeout (about 2 s), not after 13.6 s
    /// of retries. The one-shot policy does not try again a server that never took the
    /// connection, so the answer comes within one connect timeout; and nothing was written.
    @Test func aDownServerIsToldAtOnceAndNothingIsWritten() async throws {
        let world = try await ServerWorld.make()
        let port = try await ClosedPort.make()
        let retries = Counter()
        var configuration = RideServiceClient.Configuration()
        configuration.onRetry = { _ in retries.increment() }
        #expect(configuration.connectTimeout == .seconds(2) && configuration.retry == .standard)
        let client = try RideServiceClient(server: "http://127.0.0.1:\(port)", token: world.passenger.token, configuration: configuration)
        do {
            _ = try await client.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"))
            Issue.record("a closed port answered")
        } catch {
            guard case .notAnswering = error else { Issue.record("expected notAnswering, got \(error)"); return }
            #expect(error.nothingSent)
        }
        #expect(retries.value == 0, "one attempt: the answer comes within one connect timeout")
        #expect(try await world.rideRequestCount(passengerID: world.passenger.id) == 0, "nothing was written")
        await client.shutdown()
        await world.close()
    }

    /// A write without an Idempotency-Key that may have reached the server is not repeated;
    /// reads and keyed writes are; a connection never made is, when the policy says so.
    @Test func onlyIdempotentCallsAreRetriedOnceTheyMayHaveArrived() {
        let patient = RetryPolicy(maxAttempts: 3)
        let problem = APIProblem(status: 503, code: .unavailable, message: "down")
        #expect(patient.retries(.serverFailure(problem), idempotent: true))
        #expect(!patient.retries(.serverFailure(problem), idempotent: false))
        #expect(!patient.retries(.timeout("read"), idempotent: false))
        #expect(patient.retries(.notAnswering("refused"), idempotent: false))
        #expect(!RetryPolicy.standard.retries(.notAnswering("refused"), idempotent: true))
        #expect(RetryPolicy.untilCancelled.retries(.notAnswering("refused"), idempotent: false))
        #expect(!patient.retries(.rejected(APIProblem(status: 400, code: .invalidField, message: "x")), idempotent: true))
    }

    @Test func aServerWhoseDatabaseIsGoneFailsRetryably() async throws {
        let world = try await ServerWorld.make()
        await world.close()
        try await world.withServer { port in
            var configuration = RideServiceClient.Configuration()
            configuration.retry = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(10), maxDelay: .milliseconds(20))
            try await withRideServiceClient(server: "http://127.0.0.1:\(port)", token: world.dispatcher.token,
                                            configuration: configuration) { client in
                do {
                    _ = try await client.allRides()
                    Issue.record("a server without its database answered")
                } catch let error as RideClientError {
                    guard case .serverFailure(let problem) = error else { Issue.record("expected a 5xx, got \(error)"); return }
                    #expect(problem.status >= 500 && error.isRetryable)
                }
            }
        }
    }

    @Test func badConfigurationIsRefusedBeforeAnythingIsSent() {
        #expect(throws: RideClientError.self) { try RideServiceClient(server: "ftp://example.org", token: "rb_x") }
        #expect(throws: RideClientError.self) { try RideServiceClient(server: "http://127.0.0.1:1", token: "has space") }
        #expect(IdempotencyKey("with space") == nil && IdempotencyKey("ok-key_1") != nil)
    }

    /// Plain http:// only to this machine unless explicitly allowed (issue 13, item 7).
    @Test func plainHTTPToAnotherMachineNeedsExplicitConsent() throws {
        for remote in ["http://rides.example.org", "http://10.0.0.5:8080", "http://128.0.0.1", "http://127.0.0.1.evil.example", "http://[2001:db8::1]"] {
            #expect(throws: RideClientError.self, "\(remote)") { try RideServiceClient(server: remote, token: "rb_x") }
        }
        for local in ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "http://127.1.2.3", "https://rides.example.org"] {
            let client = try RideServiceClient(server: local, token: "rb_x")
            Task { await client.shutdown() }
        }
        var insecure = RideServiceClient.Configuration()
        insecure.allowsInsecureHTTP = true
        let allowed = try RideServiceClient(server: "http://rides.example.org", token: "rb_x", configuration: insecure)
        Task { await allowed.shutdown() }
    }
}

final class Counter: Sendable {
    private let box = NIOLockedValueBox(0)
    func increment() { box.withLockedValue { $0 += 1 } }
    var value: Int { box.withLockedValue { $0 } }
}


/// A loopback port with nothing listening (bound, then released).
enum ClosedPort {
    static func make() async throws -> Int {
        let relay = try await TCPRelay(toPort: 9)
        let port = relay.port
        await relay.stop()
        return port
    }
}
