import BeaconCore
import Foundation
import RideRules
import RideStore

/// The checks a touch proof must pass before it is recorded, other than who the caller is and
/// the ride's state: RideRules' `TouchProofCheck` (fresh, its slot current, its identity the one
/// the caller's counterpart advertises in that slot, derived from the ride key), answered as the
/// API's errors. The clock reading is an argument.
struct TouchProofVerifier: Sendable {
    /// The deployment's identity slot period in seconds.
    let period: Int

    func verify(_ body: TouchProof, side: TouchSide, ride: RideRecord, accountID: String, now: Date) throws -> VerifiedTouchProof {
        let identity: RotatingIdentity
        do {
            identity = try RotatingIdentity(rideKey: ride.key, period: period)
        } catch {
            throw APIError(.internalServerError, code: .internalError, "the ride's key cannot derive identities: \(error)")
        }
        let checked: CheckedTouchProof
        do {
            checked = try TouchProofCheck.verify(body, by: side, identity: identity, now: now)
        } catch {
            throw APIError(error)
        }
        return VerifiedTouchProof(verified: body, uuid: checked.uuid, rideID: ride.id, side: side, accountID: accountID,
                                  observedAt: checked.observedAt, window: (checked.from, checked.until), receivedAt: now)
    }
}

extension APIError {
    /// A refused proof as the API answers it: a malformed field is 400 `invalid_field`; a
    /// well-formed proof that does not prove a touch is 422 with its reason's code.
    init(_ refusal: TouchProofRefusal) {
        switch refusal {
        case .invalidField(let field, let message): self = .invalidField(field, message)
        case .staleProof, .staleSlot, .wrongIdentity: self = .touchRejected(refusal.code, field: refusal.field, refusal.message)
        }
    }

    /// A well-formed proof that does not prove a touch (422, code names the reason).
    static func touchRejected(_ code: APIErrorCode, field: String, _ message: String) -> APIError {
        APIError(.unprocessableContent, code: code, message, field: field)
    }
}
