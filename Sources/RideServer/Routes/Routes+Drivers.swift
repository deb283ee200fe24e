import Foundation
import Hummingbird
import RideStore

/// `GET /v1/drivers`: every driver by name, with their car and whether a waiting request can
/// be given to them now, so a dispatcher assigns "Ben" without knowing an id
/// (`ridebeacon dispatcher drivers`, the dispatcher page's list of free drivers).
struct DriverRoutes<Context: RideRequestContext>: Sendable {
    let drivers: DriverRoster

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/drivers", use: listDrivers)
    }

    @Sendable func listDrivers(_ request: Request, context: Context) async throws -> DriverList {
        _ = try context.caller(in: [.dispatcher, .admin], to: "list drivers")
        let onlyFree: Bool?
        switch request.uri.queryParameters["free"].map(String.init) {
        case nil: onlyFree = nil
        case "true": onlyFree = true
        case "false": onlyFree = false
        case let other?: throw APIError.invalidParameter("free", "must be true or false, not \(other.prefix(20))")
        }
        let all = try await drivers.all()
        return DriverList(drivers: all.filter { onlyFree == nil || $0.free == onlyFree })
    }
}

/// Drivers and whether each is free: one driver has at most one ride that occupies him
/// (accepted, arrived, or confirmed with the passenger on board: `RideState.occupiesDriver`).
struct DriverRoster: Sendable {
    let store: (any AccountStore & RideLifecycleStore)

    /// By name (case-insensitive), then id.
    func all() async throws -> [DriverInfo] {
        let active = try await store.rides(RideFilter(scope: .active, limit: 10_000)).filter(\.state.occupiesDriver)
        var rideCodes: [String: String] = [:]
        for ride in active { rideCodes[ride.driverID] = ride.shortCode ?? "—" }
        return try await store.accounts().filter { $0.role == .driver }
            .sorted { ($0.displayName.lowercased(), $0.id) < ($1.displayName.lowercased(), $1.id) }
            .map { DriverInfo(id: $0.id, name: $0.displayName, vehicle: $0.writtenVehicle, free: rideCodes[$0.id] == nil, rideCode: rideCodes[$0.id]) }
    }

    /// The drivers a request can be given to now.
    func free() async throws -> [DriverInfo] {
        try await all().filter(\.free)
    }
}

extension DriverList: ResponseGenerator, ResponseEncodable {}
