import Hummingbird
import RideRules
import RideStore

/// `/v1/rides`: a ride from acceptance to completion or cancellation.
struct RideRoutes<Context: RideRequestContext>: Sendable {
    let store: (any RideLifecycleStore & RideHistoryStore)
    let rides: RideLookup

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/rides", use: listRides)
        routes.get("/rides/{id}", use: getRide)
        routes.post("/rides/{id}/arrive", use: arrive)
        routes.post("/rides/{id}/complete", use: complete)
        routes.post("/rides/{id}/cancel", use: cancelRide)
        routes.post("/rides/{id}/eta", use: setETA)
    }

    /// Dispatchers: every active ride. Passengers and drivers: their own rides, any state.
    /// Keyset-paged by `limit` and `after` (a ride id from the previous page's `nextAfter`).
    @Sendable func listRides(_ request: Request, context: Context) async throws -> RideList {
        let account = try context.caller(for: .viewRide, to: "list rides")
        let limit = try request.pageLimit()
        let after = request.uri.queryParameters["after"].map(String.init)
        if let after {
            guard let anchor = try await store.ride(id: after), RideAccess.may(RideRelation(account, to: anchor), .viewRide) else {
                throw APIError.invalidParameter("after", "names no ride you can see")
            }
        }
        let scope: RideFilter.Scope = account.role == .dispatcher ? .active : .participant(account.id)
        let found = try await store.rideDetails(RideFilter(scope: scope, limit: limit, after: after))
        let views = found.map { detail in rides.rideView(detail, showKey: RideAccess.seesKey(RideRelation(account, to: detail.ride))) }
        return RideList(rides: try await store.withCancellations(views), nextAfter: found.count == limit ? found.last?.ride.id : nil)
    }

    @Sendable func getRide(_ request: Request, context: Context) async throws -> Ride {
        let account = try context.caller(for: .viewRide, to: "view rides")
        let (detail, party) = try await rides.visibleRide(try context.parameters.require("id"), to: account)
        return try await store.withCancellation(rides.rideView(detail, showKey: RideAccess.seesKey(party)))
    }

    @Sendable func arrive(_ request: Request, context: Context) async throws -> Ride {
        try await move(request, context: context, to: .arrived, act: .arrive, action: "mark arrival")
    }

    /// From `confirmed` only: a ride ends once both sides proved they met.
    @Sendable func complete(_ request: Request, context: Context) async throws -> Ride {
        try await move(request, context: context, to: .completed, act: .complete, action: "complete rides")
    }

    @Sendable func cancelRide(_ request: Request, context: Context) async throws -> Ride {
        try await move(request, context: context, to: .cancelled, act: .cancelRide, action: "cancel rides")
    }

    /// The ride's driver says how many minutes to the pickup; the passenger's stream hears it.
    @Sendable func setETA(_ request: Request, context: Context) async throws -> Ride {
        let driver = try context.caller(for: .giveETA, to: "give an ETA")
        let key = try request.idempotencyKey(account: driver)
        let body = try await request.decodeStrict(ETABody.self, context: context)
        var (detail, party) = try await rides.visibleRide(try context.parameters.require("id"), to: driver)
        guard RideAccess.may(party, .giveETA) else { throw APIError.notFound("ride \(detail.ride.id)") }
        do {
            detail.ride = try await store.setETA(rideID: detail.ride.id, minutes: body.minutes, by: driver.id, idempotency: key)
        } catch StoreError.illegalTransition(let from, _) {
            throw APIError.conflict(from, "the ride is \(from.rawValue); an ETA is only for an accepted ride")
        } catch StoreError.limitReached(let message) {
            // A cap per ride, not a rate: waiting does not help (issue 36).
            throw APIError(.conflict, code: .rideEventLimit, message)
        }
        return rides.rideView(detail, showKey: true)
    }

    /// Moves a ride to `state` if the caller may do `act` to it (RideRules' `RideAccess`).
    private func move(_ request: Request, context: Context, to state: RideState, act: RideAct, action: String) async throws -> Ride {
        let account = try context.caller(for: act, to: action)
        let key = try request.idempotencyKey(account: account)
        let reason = state == .cancelled
            ? try await request.decodeStrict(CancelBody.self, context: context).reason
            : try await request.decodeStrict(EmptyBody.self, context: context).reasonless
        if state == .cancelled && RideAccess.cancellationNeedsReason(by: account.role) && reason == nil {
            throw APIError.invalidField("reason", "a dispatcher must say why (it is kept in the ride's history)")
        }
        var (detail, party) = try await rides.visibleRide(try context.parameters.require("id"), to: account)
        guard RideAccess.may(party, act) else { throw APIError.notFound("ride \(detail.ride.id)") }
        // The stored result (not a re-read) is what a retry with the same key must see again.
        detail.ride = try await store.transition(rideID: detail.ride.id, to: state, by: account.id, detail: reason, idempotency: key)
        return try await store.withCancellation(rides.rideView(detail, showKey: RideAccess.seesKey(party)))
    }
}

extension EmptyBody {
    /// Transitions other than cancel carry no reason.
    var reasonless: String? { nil }
}
