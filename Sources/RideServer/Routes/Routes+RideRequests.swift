import Hummingbird
import RideRules
import RideStore

/// `/v1/ride-requests`: passengers ask for rides, drivers list the open ones and accept.
struct RideRequestRoutes<Context: RideRequestContext>: Sendable {
    let store: (any AccountStore & RideRequestStore & RideLifecycleStore & RideHistoryStore)
    let rides: RideLookup
    let bookingRule: BookingRule

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/ride-requests", use: createRideRequest)
        routes.get("/ride-requests", use: listRideRequests)
        routes.post("/ride-requests/{id}/accept", use: acceptRideRequest)
        routes.post("/ride-requests/{id}/cancel", use: cancelRideRequest)
        routes.post("/ride-requests/{id}/assign", use: assignRideRequest)
    }

    /// A dispatcher gives a waiting request to a driver, under the same one-ride-at-a-time rule
    /// as the driver's own acceptance; the history names the dispatcher.
    @Sendable func assignRideRequest(_ request: Request, context: Context) async throws -> Ride {
        let dispatcher = try context.caller(for: .assignRequest, to: "assign ride requests")
        let key = try request.idempotencyKey(account: dispatcher)
        let body = try await request.decodeStrict(AssignBody.self, context: context)
        let requestID = try await rides.requestID(from: try context.parameters.require("id"))
        guard let driver = try await store.account(id: body.driverId), driver.role == .driver else {
            throw APIError.invalidField("driverId", "names no driver account")
        }
        do {
            let ride = try await rides.booking(assigning: driver.displayName) {
                try await store.accept(requestID: requestID, driverID: driver.id, rideKey: RandomBytes.make(32),
                                       rule: bookingRule, assignedBy: dispatcher.id, idempotency: key)
            }
            guard let detail = try await store.rideDetail(id: ride.id) else { throw APIError.notFound("ride \(ride.id)") }
            return rides.rideView(detail, showKey: false)
        } catch StoreError.illegalTransition(let from, _) {
            throw APIError.conflict(from, "the ride request is \(from.rawValue); it can no longer be assigned")
        } catch StoreError.notFound {
            throw APIError.notFound("ride request \(requestID)")
        }
    }

    @Sendable func createRideRequest(_ request: Request, context: Context) async throws -> EditedResponse<RideRequest> {
        let passenger = try context.caller(in: [.passenger], to: "request rides")
        let key = try request.idempotencyKey(account: passenger)
        let body = try await request.decodeStrict(NewRideRequestBody.self, context: context)
        let created = try await rides.booking {
            try await store.createRideRequest(body.model(accountName: passenger.displayName), passengerID: passenger.id, rule: bookingRule, idempotency: key)
        }
        return EditedResponse(status: .created, response: RideRequest(created, showPassenger: true))
    }

    /// Passengers: their own requests, any status. Drivers and dispatchers: open requests,
    /// without the passenger's account id. Both keyset-paged by `limit` and `after`.
    @Sendable func listRideRequests(_ request: Request, context: Context) async throws -> RideRequestList {
        let account = try context.caller(in: [.passenger, .driver, .dispatcher], to: "list ride requests")
        let limit = try request.pageLimit()
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
        var views: [RideRequest] = []
        for record in page {
            views.append(try await store.withCancellation(RideRequest(record, showPassenger: account.role == .passenger), passengerID: record.passengerID))
        }
        return RideRequestList(rideRequests: views,
                               nextAfter: page.count == limit ? page.last?.id : nil)
    }

    /// 200 with the ride (and its key) for the one driver who wins, and again for that driver
    /// on a repeat; 409 for everyone else, and for a driver who already has another ride.
    @Sendable func acceptRideRequest(_ request: Request, context: Context) async throws -> Ride {
        let driver = try context.caller(for: .acceptRequest, to: "accept ride requests")
        let key = try request.idempotencyKey(account: driver)
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let requestID = try await rides.requestID(from: try context.parameters.require("id"))
        do {
            let ride = try await rides.booking {
                try await store.accept(requestID: requestID, driverID: driver.id, rideKey: RandomBytes.make(32), rule: bookingRule, idempotency: key)
            }
            guard let detail = try await store.rideDetail(id: ride.id) else { throw APIError.notFound("ride \(ride.id)") }
            return rides.rideView(detail, showKey: true)
        } catch StoreError.illegalTransition(let from, _) {
            throw APIError.conflict(from, "the ride request is \(from.rawValue); it can no longer be accepted")
        } catch StoreError.notFound {
            throw APIError.notFound("ride request \(requestID)")
        }
    }

    /// Only before a driver accepts; after that the ride itself is cancelled. The passenger's
    /// own request, or any request for a dispatcher, who must say why (kept in its history).
    @Sendable func cancelRideRequest(_ request: Request, context: Context) async throws -> RideRequest {
        let caller = try context.caller(for: .cancelRequest, to: "cancel ride requests")
        let key = try request.idempotencyKey(account: caller)
        let reason = try await request.decodeStrict(CancelBody.self, context: context).reason
        if RideAccess.cancellationNeedsReason(by: caller.role) && reason == nil {
            throw APIError.invalidField("reason", "a dispatcher must say why (it is kept in the request's history)")
        }
        let asked = try context.parameters.require("id")
        let requestID = try await rides.requestID(from: asked)
        guard let existing = try await store.rideRequest(id: requestID), RideAccess.may(RideRelation(caller, toRequest: existing), .cancelRequest) else {
            throw APIError.notFound("ride request \(ShortCode.normalized(asked) ?? asked)")
        }
        do {
            let cancelled = try await store.cancelRideRequest(id: requestID, by: caller.id, reason: reason, idempotency: key)
            return try await store.withCancellation(RideRequest(cancelled, showPassenger: caller.role == .passenger), passengerID: cancelled.passengerID)
        } catch StoreError.illegalTransition(let from, _) {
            let advice = from == .accepted ? "; cancel the ride\(existing.rideID.map { " \($0)" } ?? "") instead" : ""
            throw APIError.conflict(from, "the ride request is \(from.rawValue)\(advice)")
        }
    }
}
