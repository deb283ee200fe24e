import BeaconCore
import AsyncHTTPClient
import Foundation
import RideBeaconTesting
import RideStore
import Testing

/// A real `ridebeacon serve` on a temp SQLite database with one account per role, and the
/// environment the role commands run in (their own XDG_CONFIG_HOME, so no real settings leak in).
final class RideServiceFixture: Sendable {
    let passengerToken: String
    let driverToken: String
    let dispatcherToken: String
    let configHome: URL
    /// RideBeaconTesting's `serve` process and its admin commands.
    private let live: LiveServer
    var database: String { live.database }
    var port: Int { live.port }

    /// `kind`: the store `serve` runs on (PostgreSQL when the suite's fixture gives one).
    init(kind: StoreKind = .sqlite) async throws {
        live = try await LiveServer(kind: kind, prefix: "cli")
        passengerToken = try await live.createAccount(role: "passenger", name: "Ana")
        driverToken = try await live.createAccount(role: "driver", name: "Ben", vehicle: "blue Prius")
        dispatcherToken = try await live.createAccount(role: "dispatcher", name: "Dot")
        configHome = try CLI.temporaryDirectory()
    }

    var url: String { live.baseURL }

    /// The ride's history as the server stored it, read from its database.
    func events(_ rideID: String) async throws -> [RideEvent] {
        let store = try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)
        defer { Task { await store.close() } }
        // The role commands print short codes.
        var id = rideID
        if let code = ShortCode.normalized(rideID), let held = try await store.rideRequest(code: code)?.rideID { id = held }
        return try await store.events(rideID: id, after: 0)
    }

    /// The role commands' environment: this server, `token`, and an empty config directory.
    func environment(token: String?, server: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = configHome.path
        environment["RIDEBEACON_SERVER"] = server ?? url
        environment.removeValue(forKey: "RIDEBEACON_TOKEN")
        if let token { environment["RIDEBEACON_TOKEN"] = token }
        return environment
    }

    func run(_ arguments: [String], as token: String?) async throws -> CLI.Result {
        try await CLI.run(arguments, environment: environment(token: token))
    }

    /// POSTs `json` to `path` as `token`; the status and the body decoded loosely.
    @discardableResult
    func post(_ path: String, json: String = "{}", as token: String) async throws -> (UInt, [String: Any]) {
        var request = HTTPClientRequest(url: "\(url)\(path)")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(Data(json.utf8))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]) ?? [:])
    }

    /// A ride as its driver sees it, decoded loosely (key and period for identity checks).
    func rideJSON(_ rideID: String) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: "\(url)/v1/rides/\(rideID)")
        request.headers.add(name: "Authorization", value: "Bearer \(driverToken)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (try JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    /// Posts the passenger's touch proof of `driver` (the driver's identity as observed now);
    /// returns the HTTP status and the body.
    /// `feltSince`: when the passenger's device began feeling the touch (the proof's window
    /// runs from then to now); nil, the instant now.
    func postPassengerProof(_ rideID: String, driver: BeaconIdentity, slot: UInt64, feltSince: Date? = nil) async throws -> (UInt, [String: Any]) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let now = Date()
        var proof: [String: Any] = [
            "uuid": driver.uuid.uuidString, "major": Int(driver.major), "minor": Int(driver.minor), "slot": Int(slot),
            "peakRssiDbm": -45.0, "samples": 20, "observedAt": formatter.string(from: now),
        ]
        if let feltSince {
            proof["observedFrom"] = formatter.string(from: feltSince)
            proof["observedUntil"] = formatter.string(from: now)
        }
        var request = HTTPClientRequest(url: "\(url)/v1/rides/\(rideID)/touch-proofs")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(passengerToken)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(try JSONSerialization.data(withJSONObject: proof))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, (try JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:])
    }
}
