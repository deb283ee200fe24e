import Crypto
import Foundation
import Hummingbird
import Logging
import RideStore

/// The one way a sign-in code becomes a token, for every sign-in surface (the API, the
/// passenger page, the dispatcher page): the key's hash, the per-account budget and `admit`
/// before anything is written, the audit line after.
struct CodeRedemption: Sendable {
    let store: any AccountStore
    let limits: RateLimits
    let signInKey: SignInKey
    let now: @Sendable () -> Date

    func redeem(_ digits: String, secret: APITokenSecret, reservation: AuthenticationReservation, expiresAt: Date?,
                logger: Logger, admit: @escaping @Sendable (Account) throws -> Void) async throws -> SignIn {
        let limits = self.limits
        do {
            let signedIn = try await store.redeemSignInCode(codeHash: SignInCodeHash.of(digits, key: try keyNow()), tokenSecretHash: secret.hash,
                                                            tokenExpiresAt: expiresAt, now: now()) { account in
                try limits.reserveAccount(account.id, in: reservation)
                try admit(account)
            }
            reservation.succeeded()
            limits.signedIn(from: reservation)
            AdminAudit.record(logger, action: "sign-in", actor: signedIn.account.id, via: .api,
                              details: ["token_id": signedIn.token.id, "code_id": signedIn.codeID, "issued_by": signedIn.issuedBy])
            return signedIn
        } catch StoreError.signInRefused(let refusal) {
            reservation.failed()
            throw StoreError.signInRefused(refusal)
        }
    }

    /// The sign-in key, or 503 when its file cannot be used (the log says why).
    func keyNow() throws -> SymmetricKey {
        do { return try signInKey.current() } catch {
            // The path stays out of the answer; `serve` checks the key at start and says why.
            throw APIError.unavailable("sign-in is unavailable: the server's sign-in key cannot be read; tell the operator")
        }
    }
}
