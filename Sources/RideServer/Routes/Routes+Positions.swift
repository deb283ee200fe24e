import Foundation
import Hummingbird
import RideRules
import RideStore

/// `/v1/rides/{id}/position…` (issue 35): during the approach (`accepted`, `arrived`) each of
/// the ride's two people reports their satellite position; each sees only the other's, exactly;
/// a dispatcher sees both, coarsely; nobody else anything. The store keeps the latest per party
/// (never a history) and deletes them when the ride is confirmed, cancelled or completed.
struct PositionRoutes<Context: RideRequestContext>: Sendable {
    let store: any KerbStore
    let rides: RideLookup
    let limits: RateLimits
    let now: @Sendable () -> Date

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.put("/rides/{id}/position", use: report)
        routes.get("/rides/{id}/position/other", use: otherParty)
        routes.get("/rides/{id}/positions", use: coarse)
    }

    /// Checks in the order openapi.yaml documents: role, body, the caller's own ride, the fix's
    /// time, the party's rate, then (in the store, atomically) the ride's state.
    @Sendable func report(_ request: Request, context: Context) async throws -> Response {
        let account = try context.caller(for: .sharePosition, to: "report a position")
        let body = try await request.decodeStrict(PositionBody.self, context: context)
        let (party, ride) = try await ownRide(context, account, for: .sharePosition)
        let now = now()
        let recordedAt = try PositionFixTime.recordedAt(body.recordedAt, now: now)
        try limits.admitPosition(rideID: ride.id, account: account.id)
        let position = RidePosition(latitude: body.latitude, longitude: body.longitude, accuracyMeters: body.accuracyMeters,
                                    courseDegrees: body.courseDegrees, recordedAt: recordedAt)
        let recording: PositionRecording
        do { recording = try await store.recordPosition(rideID: ride.id, party: party, position) } catch let error as StoreError {
            throw APIError(error)
        }
        if case .wrongState(let state) = recording {
            throw APIError(.conflict, code: .wrongState,
                           "the ride is \(state.rawValue); positions are shared only while it is accepted or arrived", state: state)
        }
        return Response(status: .noContent)
    }

    /// The other party's latest position, or `{"position": null}`: never the caller's own.
    @Sendable func otherParty(_ request: Request, context: Context) async throws -> OtherPartyPositionView {
        let account = try context.caller(for: .seeOtherPosition, to: "see the other party's position")
        let (party, ride) = try await ownRide(context, account, for: .seeOtherPosition)
        let other: TouchSide = party == .passenger ? .driver : .passenger
        do { return OtherPartyPositionView(position: try await store.position(rideID: ride.id, party: other)) } catch let error as StoreError {
            throw APIError(error)
        }
    }

    /// Dispatchers: both parties, coarse (`RidePosition.coarse`), never exact.
    @Sendable func coarse(_ request: Request, context: Context) async throws -> RidePositions {
        let account = try context.caller(for: .seeCoarsePositions, to: "see a ride's coarse positions")
        let (detail, party) = try await rides.visibleRide(try context.parameters.require("id"), to: account)
        guard RideAccess.may(party, .seeCoarsePositions) else { throw APIError.notFound("ride \(detail.ride.id)") }
        let exact: RidePositions
        do { exact = try await store.positions(rideID: detail.ride.id) } catch let error as StoreError { throw APIError(error) }
        return RidePositions(passenger: exact.passenger?.coarse, driver: exact.driver?.coarse)
    }

    /// The ride named in the path, if the caller is its passenger or driver and may do `act`;
    /// any other ride answers exactly like one that does not exist (no existence oracle).
    private func ownRide(_ context: Context, _ account: Account, for act: RideAct) async throws -> (TouchSide, RideRecord) {
        let (detail, party) = try await rides.visibleRide(try context.parameters.require("id"), to: account)
        guard RideAccess.may(party, act), let side = party.side else { throw APIError.notFound("ride \(detail.ride.id)") }
        return (side, detail.ride)
    }
}

/// A reported fix's time (`recordedAt`), checked against the server's clock.
enum PositionFixTime {
    /// How far ahead of the server's clock a fix may be dated: a phone's clock a little fast.
    static let futureAllowance: TimeInterval = 60
    /// How old a fix may be: older says nothing useful about where the person is now.
    static let maximumAge: TimeInterval = 600

    /// The fix's time: the server's receipt when absent; refused when far ahead of the server's
    /// clock or too old to say where the person is.
    static func recordedAt(_ text: String?, now: Date) throws -> Date {
        guard let text else { return now }
        guard let at = APIJSON.parseTimestamp(text) else { throw APIError.invalidField("recordedAt", "must be an RFC 3339 date-time") }
        guard at.timeIntervalSince(now) <= futureAllowance else {
            throw APIError.invalidField("recordedAt", "is more than \(Int(futureAllowance)) s ahead of the server's clock; check the device's clock")
        }
        guard now.timeIntervalSince(at) <= maximumAge else {
            throw APIError.invalidField("recordedAt", "is more than \(Int(maximumAge / 60)) minutes old; send a fresh fix")
        }
        return at
    }
}

/// `OtherPartyPosition` as the API writes it: no position is `{"position": null}` (openapi.yaml:
/// required, nullable), where the synthesized encoding would leave the key out.
struct OtherPartyPositionView: Encodable, ResponseGenerator, ResponseEncodable {
    var position: RidePosition?

    private enum CodingKeys: String, CodingKey { case position }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
    }
}
extension RidePositions: ResponseGenerator, ResponseEncodable {}
