import BeaconCore
import Foundation
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import RideServer
@testable import RideStore
import RideBeaconTesting
import Testing

/// The ride key roots the rotating identity: whoever holds it can impersonate the driver. It
/// must reach the ride's two people and nobody and nothing else.
@Suite("Ride key secrecy", .timeLimit(.minutes(2)))
struct RideKeySecrecyTests {
    final class LogCapture: Sendable {
        private let lines = NIOLockedValueBox<[String]>([])
        var text: String { lines.withLockedValue { $0.joined() } }
        func logger(_ label: String) -> Logger {
            Logger(label: label) { label in
                JSONLogHandler(label: label, level: .trace) { data in self.lines.withLockedValue { $0.append(String(decoding: data, as: UTF8.self)) } }
            }
        }
    }

    /// The key in every form it could leak in.
    static func forms(of key: Data) -> [String] {
        [key.base64EncodedString(), key.map { String(format: "%02x", $0) }.joined(), key.map { String(format: "%02X", $0) }.joined(),
         APIJSONLike.base64URL(key)]
    }

    @Test(arguments: StoreKind.available)
    func keyNeverReachesDispatchersLogsOrMetrics(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let capture = LogCapture()
        // The store logs through the same capture (PostgresNIO logs its queries at debug and trace).
        let store: any Store = kind == .postgres ? try PostgresStore(url: world.location, logger: capture.logger("ridebeacon.store")) : world.store
        let clock = SteppedClock()
        try await world.app(store: store, logger: capture.logger("ridebeacon"), configure: { $0.now = clock.reading }).test(.live) { client in
            let port = try #require(client.port)
            let dispatcherStream = try await SSEReader.open(port: port, path: "/v1/events?after=0", token: world.dispatcher.token)
            defer { dispatcherStream.close() }
            let request = try await client.call(.post, "/v1/ride-requests", as: world.passenger, json: Bodies.rideRequest)
            let accepted = try await client.call(.post, "/v1/ride-requests/\(request.id)/accept", as: world.driver)
            let rideID = accepted.id
            let key = try #require(Data(base64Encoded: accepted.string("key") ?? ""))
            #expect(key.count == 32 && accepted.json["identityPeriodSeconds"] as? Int == 30)
            // The passenger gets the same key.
            #expect(try await client.call(.get, "/v1/rides/\(rideID)", as: world.passenger).string("key") == key.base64EncodedString())
            _ = try await client.call(.post, "/v1/rides/\(rideID)/arrive", as: world.driver)
            for side in [BeaconSide.passenger, .driver] {
                _ = try await client.call(.post, "/v1/rides/\(rideID)/touch-proofs", as: side == .passenger ? world.passenger : world.driver,
                                          json: ProofBody(ride: key, by: side, at: clock.now).json)
            }
            #expect(try await store.ride(id: rideID)?.state == .confirmed)
            _ = await dispatcherStream.wait { $0.contains { $0.event == "confirmed" } }

            var seenByDispatcher = [
                try await client.call(.get, "/v1/rides", as: world.dispatcher).text,
                try await client.call(.get, "/v1/rides/\(rideID)", as: world.dispatcher).text,
                try await client.call(.post, "/v1/rides/\(rideID)/cancel", as: world.dispatcher, json: #"{"reason":"test"}"#).text,
            ]
            seenByDispatcher += await dispatcherStream.messages.compactMap(\.data)
            let metrics = try await client.call(.get, "/metrics", as: nil).text
            let logs = capture.text
            #expect(logs.contains(rideID), "the capture really holds this ride's log lines")
            #expect(seenByDispatcher.joined().contains(rideID))
            for form in Self.forms(of: key) {
                #expect(!seenByDispatcher.joined().contains(form), "dispatcher saw the key as \(form)")
                #expect(!logs.contains(form), "logs contain the key as \(form)")
                #expect(!metrics.contains(form), "metrics contain the key as \(form)")
            }
        }
        if kind == .postgres { await store.close() }
    }
}

enum APIJSONLike {
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
