import Foundation
import HTTPTypes
import HummingbirdTesting
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

@Suite("Health, metrics, request ids", .timeLimit(.minutes(2)))
struct OperationsTests {
    @Test(arguments: StoreKind.available)
    func healthReportsTheDatabase(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        try await world.app().test(.live) { client in
            let health = try await client.call(.get, "/health", as: nil)
            #expect(health.status == .ok && health.string("status") == "ok")
            #expect(health.string("database") == (kind == .sqlite ? "sqlite" : "postgresql"))
        }
    }

    @Test func metricsCountRequestsByRouteAndStatus() async throws {
        let world = try await World.make(.sqlite)
        let ride = try await world.acceptedRide()
        try await world.app().test(.live) { client in
            _ = try await client.call(.get, "/v1/rides/\(ride.id)", as: world.driver)
            _ = try await client.call(.get, "/v1/rides/\(ride.id)", as: world.driver)
            _ = try await client.call(.get, "/v1/rides/\(ride.id)", as: world.otherDriver)
            _ = try await client.call(.get, "/nowhere", as: nil)
            // Methods beyond HTTP's own (the parser knows WebDAV's too) count as `other`.
            _ = try await client.call(HTTPRequest.Method("PROPFIND")!, "/nowhere", as: nil)
            _ = try await client.call(HTTPRequest.Method("MKCOL")!, "/nowhere", as: nil)
            let metrics = try await client.call(.get, "/metrics", as: nil)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = metrics.text
            #expect(text.contains(#"ridebeacon_http_requests_total{route="/v1/rides/{id}",method="GET",status="200"} 2"#))
            #expect(text.contains(#"ridebeacon_http_requests_total{route="/v1/rides/{id}",method="GET",status="404"} 1"#))
            #expect(text.contains(#"ridebeacon_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
            #expect(text.contains(#"ridebeacon_http_request_duration_seconds_count{route="/v1/rides/{id}",method="GET"} 3"#))
            #expect(text.contains(#"ridebeacon_http_requests_total{route="unmatched",method="other",status="404"} 2"#) ||
                    text.contains(#"ridebeacon_http_requests_total{route="unmatched",method="other",status="405"} 2"#), "\(text)")
            #expect(!text.contains("PROPFIND") && !text.contains("MKCOL"))
            #expect(text.contains(#"ridebeacon_rides{state="accepted"} 1"#))
            #expect(text.contains(#"ridebeacon_rides{state="completed"} 0"#))
            #expect(text.contains("ridebeacon_database_up 1"))
            // Ride ids never become label values.
            #expect(!text.contains(ride.id))
        }
    }

    @Test func everyResponseCarriesARequestID() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            let generated = try await client.call(.get, "/health", as: nil)
            let other = try await client.call(.get, "/v1/rides", as: nil)
            let first = try #require(generated.headers[.init("X-Request-ID")!])
            #expect(!first.isEmpty && other.headers[.init("X-Request-ID")!] != first)
            let given = try await client.call(.get, "/v1/rides", as: nil, headers: ["X-Request-ID": "trace-42"])
            #expect(given.headers[.init("X-Request-ID")!] == "trace-42")
            // Ids that would be unsafe in logs are replaced, not echoed.
            let unsafe = try await client.call(.get, "/health", as: nil, headers: ["X-Request-ID": "a b\"c"])
            #expect(unsafe.headers[.init("X-Request-ID")!] != "a b\"c")
        }
    }

    /// The database vanishes under a running server and comes back: 503 with a message
    /// meanwhile, and normal service afterwards without a restart.
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func databaseOutageIs503AndRecoversWithoutRestart() async throws {
        let world = try await World.make(.postgres)
        let direct = try #require(URLComponents(string: world.location))
        let relay = try await TCPRelay(to: direct.host ?? "127.0.0.1", port: direct.port ?? 5432, up: false)
        var viaRelay = direct
        viaRelay.port = relay.port
        // The relay refuses connections yet: the server starts with its database down.
        // Short enough for the partition below to end in a 503, long enough for a loaded machine.
        let store = try PostgresStore(url: viaRelay.string ?? "", operationTimeout: .seconds(5), logger: .quiet)
        defer { Task { await relay.stop(); await store.close() } }
        try await world.app(store: store).test(.live) { client in
            let down = try await client.call(.get, "/health", as: nil)
            #expect(down.status == .serviceUnavailable && down.errorCode == "unavailable")
            #expect(down.errorMessage.contains("database"))
            let write = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest)
            #expect(write.status == .serviceUnavailable && write.headers[.retryAfter] == "1")

            relay.comeUp()
            #expect(try await eventually { try await client.call(.get, "/health", as: nil).status == .ok })
            // A loaded machine may still answer 503 (Retry-After) while the pool reconnects; the
            // client retries as told. One ride at a time: a retry after a write that did land is 409.
            #expect(try await eventually {
                [.created, .conflict].contains(try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest).status)
            })

            // A partition: established connections stop answering without failing. The
            // operation deadline answers 503 (its own message, not the pool's minute-long queue;
            // how promptly is StoreDeadlineTests' business, not a wall-clock bound here).
            relay.freeze(true)
            let partitioned = try await client.call(.get, "/v1/rides", as: world.passenger)
            #expect(partitioned.status == .serviceUnavailable && partitioned.errorMessage.contains("did not answer"))

            // And once more while running: connections cut, then restored.
            await relay.goDown()
            #expect(try await eventually { try await client.call(.get, "/v1/rides", as: world.passenger).status == .serviceUnavailable })
            relay.comeUp()
            #expect(try await eventually { try await client.call(.get, "/v1/rides", as: world.passenger).status == .ok })
        }
        #expect(try await world.store.rideRequests(passengerID: world.passenger.id).count == 1)
    }

    /// Two server processes on one PostgreSQL database: a change made through one reaches a
    /// stream on the other through LISTEN/NOTIFY (the safety-net poll is set far too slow to help).
    @Test(.enabled(if: StoreKind.postgresURL != nil))
    func eventsCrossServersThroughListenNotify() async throws {
        let world = try await World.make(.postgres)
        let otherStore = try await StoreLocation.open(world.location, operationTimeout: StoreKind.testOperationTimeout)
        let slowPoll = {
            var configuration = EventHub.Configuration.testing
            configuration.pollInterval = .seconds(600)
            return configuration
        }()
        let ride = try await world.acceptedRide()
        try await world.app(events: slowPoll).test(.live) { writer in
            try await world.app(store: otherStore, events: slowPoll).test(.live) { reader in
                let port = try #require(reader.port)
                let stream = try await SSEReader.open(port: port, path: "/v1/events", token: world.dispatcher.token)
                defer { stream.close() }
                let perRide = try await SSEReader.open(port: port, path: "/v1/rides/\(ride.id)/events", token: world.passenger.token)
                defer { perRide.close() }
                _ = await stream.wait { $0.contains { $0.retry != nil } }
                _ = await perRide.wait { $0.contains { $0.event == "accepted" } }

                // The poll is 600 s away, so arriving within the (generous) wait proves NOTIFY.
                #expect(try await writer.call(.post, "/v1/rides/\(ride.id)/arrive", as: world.driver).status == .ok)
                let seen = await stream.wait(timeout: .seconds(60)) { $0.contains { $0.event == "arrived" } }
                #expect(seen.filter { $0.event == "arrived" }.count == 1, "no arrival through LISTEN/NOTIFY within 60 s: \(seen)")
                let seenByPassenger = await perRide.wait(timeout: .seconds(60)) { $0.contains { $0.event == "arrived" } }
                #expect(seenByPassenger.filter { $0.event != nil }.map(\.event) == ["requested", "accepted", "arrived"])
            }
        }
        await otherStore.close()
    }
}

/// Polls `condition` for up to `timeout`.
func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(100))
    }
    return false
}
