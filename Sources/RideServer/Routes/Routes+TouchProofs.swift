import BeaconCore
import Foundation
import Hummingbird
import RideRules
import RideStore

/// `POST /v1/rides/{id}/touch-proofs`: a side proves it touched its counterpart's device.
/// Checks run in the order openapi.yaml documents; the first failure answers with its own
/// code, and nothing is stored for a rejected proof.
struct TouchProofRoutes<Context: RideRequestContext>: Sendable {
    let store: (any RideLifecycleStore & KerbStore)
    let rides: RideLookup
    let limits: RateLimits
    let metrics: ServerMetrics
    let touch: TouchProofConfiguration
    let now: @Sendable () -> Date

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/rides/{id}/touch-proofs", use: submitTouchProof)
    }

    @Sendable func submitTouchProof(_ request: Request, context: Context) async throws -> TouchProofResult {
        let account = try context.caller(for: .proveTouch, to: "submit touch proofs")
        try limits.admitTouchProof(token: context.tokenKey ?? account.id, address: limits.clientAddress(request, context: context))
        do {
            let result = try await verifyAndRecord(request, context: context, account: account)
            metrics.recordTouchProof(outcome: result.outcome.rawValue)
            return result
        } catch let error as APIError {
            metrics.recordTouchProof(outcome: error.code.rawValue)
            throw error
        } catch let error as StoreError {
            let refusal = APIError(error)
            metrics.recordTouchProof(outcome: refusal.code.rawValue)
            throw refusal
        }
    }

    private func verifyAndRecord(_ request: Request, context: Context, account: Account) async throws -> TouchProofResult {
        let key = try request.idempotencyKey(account: account)
        let body = try await request.decodeStrict(TouchProof.self, context: context)
        let rideID = try await rides.rideID(from: try context.parameters.require("id"))
        guard let detail = try await store.rideDetail(id: rideID) else { throw APIError.notFound("ride \(rideID)") }
        let ride = detail.ride
        let party = RideRelation(account, to: ride)
        guard RideAccess.may(party, .proveTouch), let side = party.side else {
            throw APIError(.forbidden, code: .notYourRide, "you are not this ride's passenger or driver")
        }
        // With an Idempotency-Key the store decides the state after looking the key up, so a
        // retry after the ride was confirmed still gets its first answer back.
        if key == nil, ride.state != .arrived { throw Self.wrongState(ride.state) }
        let proof = try TouchProofVerifier(period: touch.identityPeriod).verify(body, side: side, ride: ride, accountID: account.id, now: now())
        // The store refuses a resend (`replayed_proof`: an exact copy, or one of the same side
        // and slot whose observation ends within `TouchProof.resentTolerance` of an accepted
        // one's, RideRules' `TouchPairing.isResend`) in the transaction that records, so copies
        // sent at once cannot all pass.
        let outcome: TouchProofRecording
        do {
            outcome = try await store.recordTouchProof(proof, policy: touch.policy, idempotency: key)
        } catch StoreError.illegalTransition(let from, _) {
            throw Self.wrongState(from)
        } catch StoreError.limitReached(let message) {
            throw APIError(.conflict, code: .rideEventLimit, message)
        }
        if outcome.confirmed {
            context.logger.info("ride confirmed by touch proofs", metadata: ["ride_id": .string(ride.id), "policy": .string(touch.policy.rawValue)])
        }
        var confirmedDetail = detail
        confirmedDetail.ride = outcome.ride
        let answer: TouchProofResult.Outcome = outcome.confirmed ? .confirmed
            : outcome.notSimultaneous == true ? .touchNotSimultaneous : .awaitingCounterpart
        return TouchProofResult(outcome: answer, side: side, ride: rides.rideView(confirmedDetail, showKey: true))
    }

    private static func wrongState(_ state: RideState) -> APIError {
        APIError(.conflict, code: .wrongState,
                 "the ride is \(state.rawValue); touch proofs are taken only while it is arrived", state: state)
    }
}

/// How a deployment confirms rides by touch.
public struct TouchProofConfiguration: Sendable {
    public var policy: TouchPolicy = .mutual
    /// The rotating identity's slot period in seconds (10...900).
    public var identityPeriod = RotatingIdentity.defaultPeriod

    public init(policy: TouchPolicy = .mutual, identityPeriod: Int = RotatingIdentity.defaultPeriod) {
        self.policy = policy
        self.identityPeriod = identityPeriod
    }
}
