import Hummingbird
import RideStore

/// `/v1/ride-requests`: passengers ask for rides, drivers list the open ones and accept.
extension RideAPI {
    func addRideRequestRoutes(_ routes: RouteRegistrar) {
        routes.post("/ride-requests", use: createRideRequest)
        routes.get("/ride-requests", use: listRideRequests)
        routes.post("/ride-requests/{id}/accept", use: acceptRideRequest)
        routes.post("/ride-requests/{id}/cancel", use: cancelRideRequest)
    }

    @Sendable func createRideRequest(_ request: Request, context: RideContext) async throws -> EditedResponse<RideRequest> {
        let passenger = try context.caller(in: [.passenger], to: "request rides")
        let key = try idempotencyKey(request, account: passenger)
        let body = try await request.decodeStrict(NewRideRequestBody.self, context: context)
        let created = try await store.createRideRequest(body.model, passengerID: passenger.id, idempotency: key)
        hub.wake()
        return EditedResponse(status: .created, response: RideRequest(created, showPassenger: true))
    }

    /// Passengers: their own requests, any status. Drivers and dispatchers: open requests,
    /// without the passenger's account id. Both keyset-paged by `limit` and `after`.
    @Sendable func listRideRequests(_ request: Request, context: RideContext) async throws -> RideRequestList {
        let account = try context.caller(in: [.passenger, .driver, .dispatcher], to: "list ride requests")
        let limit = try pageLimit(request)
        let after = request.uri.queryParameters["after"].map(String.init)
        if let after {
            // Like rides: an anchor the caller may not see is refused, so paging reveals nothing.
            guard let anchor = try await store.rideRequest(id: after),
                  account.role == .passenger ? anchor.passengerID == account.id : true else {
                throw APIError.invalidParameter("after", "names no ride request you can see")
            }
        }
        let page = account.role == .passenger
            ? try await store.rideRequests(passengerID: account.id, limit: limit, after: after)
            : try await store.openRideRequests(limit: limit, after: after)
        return RideRequestList(rideRequests: page.map { RideRequest($0, showPassenger: account.role == .passenger) },
                               nextAfter: page.count == limit ? page.last?.id : nil)
    }

    /// 200 with the ride (and its key) for the one driver who wins; 409 for everyone else.
    @Sendable func acceptRideRequest(_ request: Request, context: RideContext) async throws -> Ride {
        let driver = try context.caller(in: [.driver], to: "accept ride requests")
        let key = try idempotencyKey(request, account: driver)
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let requestID = try context.parameters.require("id")
        do {
            let ride = try await store.accept(requestID: requestID, driverID: driver.id, rideKey: RandomBytes.make(32), idempotency: key)
            hub.wake()
            let passenger = try await store.account(id: ride.passengerID)
            let detail = RideDetail(ride: ride, passenger: RideParty(name: passenger?.displayName ?? ""),
                                    driver: RideParty(name: driver.displayName, vehicle: driver.vehicle))
            return rideView(detail, showKey: true)
        } catch StoreError.illegalTransition(let from, _) {
            throw APIError.conflict(from, "the ride request is \(from.rawValue); it can no longer be accepted")
        } catch StoreError.notFound {
            throw APIError.notFound("ride request \(requestID)")
        }
    }

    /// Only before a driver accepts; after that the ride itself is cancelled.
    @Sendable func cancelRideRequest(_ request: Request, context: RideContext) async throws -> RideRequest {
        let passenger = try context.caller(in: [.passenger], to: "cancel ride requests")
        let key = try idempotencyKey(request, account: passenger)
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let requestID = try context.parameters.require("id")
        guard let existing = try await store.rideRequest(id: requestID), existing.passengerID == passenger.id else {
            throw APIError.notFound("ride request \(requestID)")
        }
        do {
            let cancelled = try await store.cancelRideRequest(id: requestID, by: passenger.id, idempotency: key)
            hub.wake()
            return RideRequest(cancelled, showPassenger: true)
        } catch StoreError.illegalTransition(let from, _) {
            let advice = from == .accepted ? "; cancel the ride\(existing.rideID.map { " \($0)" } ?? "") instead" : ""
            throw APIError.conflict(from, "the ride request is \(from.rawValue)\(advice)")
        }
    }
}
