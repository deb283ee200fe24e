import Hummingbird
import RideRules
import RideStore

/// Server-sent event streams: one ride's history and live changes, or (dispatchers) every ride's.
struct EventRoutes<Context: RideRequestContext>: Sendable {
    let store: (any AccountStore & RideHistoryStore)
    let rides: RideLookup
    /// Streams subscribe to it; nothing here writes.
    let hub: EventHub

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/rides/{id}/events", use: rideEvents)
        routes.get("/events", use: allEvents)
    }

    /// A stream's replay reads the history this many events at a time (issue 36: it read the
    /// whole history at once on every fresh start, however long a client had made it).
    static var replayPage: Int { 200 }

    /// Starts with the ride's whole history unless resuming (`Last-Event-ID` or `?after=`).
    @Sendable func rideEvents(_ request: Request, context: Context) async throws -> Response {
        let account = try context.caller(for: .viewRide, to: "follow rides")
        let resume = try request.resumePoint() ?? 0
        let ride = try await rides.visibleRide(try context.parameters.require("id"), to: account).0.ride
        let subscription = try await hub.subscribe(.ride(ride.id), credential: try await streamCredential(context))
        let store = self.store
        return EventStream(subscription: subscription, history: { after in
            try await store.events(rideID: ride.id, after: after, limit: Self.replayPage)
        }, resumeAfter: resume, requestBody: request.body).response
    }

    /// Live changes of every ride. Without a resume point it starts now (dispatchers load the
    /// current list from GET /v1/rides); with one it replays everything after it first.
    @Sendable func allEvents(_ request: Request, context: Context) async throws -> Response {
        _ = try context.caller(in: [.dispatcher], to: "follow all rides")
        let resume = try request.resumePoint()
        let subscription = try await hub.subscribe(.all, credential: try await streamCredential(context))
        let store = self.store
        return EventStream(subscription: subscription, history: { after in
            guard resume != nil else { return [] }
            return try await store.events(after: after, limit: 500)
        }, resumeAfter: resume ?? 0, requestBody: request.body).response
    }

    /// The token the caller authenticated with and when it expires, so the server can end the
    /// stream when it stops working and cap streams per token.
    private func streamCredential(_ context: Context) async throws -> StreamCredential {
        guard let hash = context.tokenHash, let token = try await store.token(secretHash: hash) else {
            throw APIError.unauthenticated("unknown, revoked or expired token")
        }
        return StreamCredential(secretHash: hash, expiresAt: token.expiresAt)
    }
}
