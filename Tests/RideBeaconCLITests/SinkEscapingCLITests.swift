import Foundation
import RideBeaconTesting
import RideStore
import Testing

/// Issue 24, finding 3: text from the service reaches the passenger's terminal, voice and
/// desktop. A cancel reason written straight into the database (an older row, another writer:
/// the server's edge refuses it now) must not drive the terminal or inject notification markup.
@Suite("Sink escaping in passenger follow", .tags(.process), .timeLimit(.minutes(3)))
struct SinkEscapingCLITests {
    static let hostile = "Traffic\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mYOUR RIDE IS CONFIRMED\r<a href=\"http://evil.example\">tap</a><img src=\"file:///etc/passwd\">"

    @Test func aHostileCancelReasonIsShownInertOnTheTerminalAndInTheNotification() async throws {
        let service = try await RideServiceFixture()
        let notifying = NotificationDaemonMock.shouldRun
        let bus = notifying ? try await NotificationDaemonMock() : nil
        defer { bus?.stop() }
        let requested = try await service.run(["passenger", "request", "--pickup", "Main St 1", "--dropoff", "Station"], as: service.passengerToken)
        #expect(requested.status == 0, "\(requested.stderr)")
        let code = requested.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        await #expect(try service.run(["driver", "accept", code], as: service.driverToken).status == 0)

        var environment = service.environment(token: service.passengerToken)
        if let bus { environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address }
        let follow = try BackgroundProcess(["passenger", "follow", "--audio-out", "none"] + (notifying ? [] : ["--no-notifications"]),
                                           environment: environment)
        #expect(await follow.wait { out, _ in out.contains("is on the way") }, "\(follow.stdout)\n\(follow.stderr)")

        let store = try await StoreLocation.open(service.database, operationTimeout: StoreKind.testOperationTimeout)
        let ride = try #require(try await store.rides(RideFilter(scope: .active)).first)
        _ = try await store.transition(rideID: ride.id, to: .cancelled, by: ride.driverID, detail: Self.hostile, idempotency: nil)
        await store.close()

        #expect(await follow.wait(seconds: 60) { out, _ in out.contains("Ride cancelled") }, "\(follow.stdout)\n\(follow.stderr)")
        _ = await follow.exitStatus(within: 30)
        let shown = follow.stdout
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control character reaches the terminal: \(shown.debugDescription)")
        #expect(shown.contains("Traffic\u{FFFD}]0;pwned\u{FFFD}"), "what was there is still visible, defused: \(shown.debugDescription)")
        if let bus {
            let body = try #require(bus.notifications().last { $0.summary == "Ride cancelled" }?.body)
            #expect(!body.contains("<a") && !body.contains("<img") && body.contains("&lt;a href="), "markup arrives as text: \(body)")
            #expect(!body.unicodeScalars.contains { $0.value < 0x20 }, "\(body.debugDescription)")
        }
    }
}

/// The admin CLI's names and vehicles pass the server's edge rule too (issue 24, finding 3:
/// "driver names and vehicle text go in unescaped").
@Suite("Admin text at the edge", .tags(.process))
struct AdminTextEdgeCLITests {
    @Test func namesAndVehiclesWithControlCharactersAreRefused() async throws {
        let directory = try CLI.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("edge.sqlite").path
        let name = try await CLI.run(["admin", "create-account", "--role", "driver", "--name", "Ben\u{1B}[2J", "--vehicle", "van", "--database", database])
        #expect(name.status != 0 && name.stderr.contains("--name must not contain control characters"), "\(name.stderr)")
        let vehicle = try await CLI.run(["admin", "create-account", "--role", "driver", "--name", "Ben", "--vehicle", "van\u{07}", "--database", database])
        #expect(vehicle.status != 0 && vehicle.stderr.contains("--vehicle must not contain control characters"), "\(vehicle.stderr)")
        #expect(!(try await CLI.run(["admin", "list-accounts", "--database", database]).stdout.contains("Ben")), "nothing was created")
    }
}
