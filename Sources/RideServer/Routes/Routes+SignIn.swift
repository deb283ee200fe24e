import Crypto
import Foundation
import Hummingbird
import RideStore

/// Getting in without typing a token: an admin or dispatcher issues a one-time eight-digit
/// sign-in code for an account, its holder exchanges it for a token (`/v1/sign-in`, the one
/// `/v1` route without a token), and lists or revokes their tokens one at a time.
struct SignInRoutes<Context: RideRequestContext>: Sendable {
    let store: any AccountStore
    let limits: RateLimits
    let codes: CodeRedemption
    /// How long a signed-in device's token works (`RideServerConfiguration.signInTokenLifetime`).
    let tokenLifetime: TimeInterval
    let now: @Sendable () -> Date

    /// Behind the token check.
    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/accounts/{id}/sign-in-codes", use: issueSignInCode)
        routes.get("/tokens", use: listOwnTokens)
        routes.post("/tokens/{id}/revoke", use: revokeOwnToken)
    }

    /// Outside the token check: whoever holds a code has no token yet.
    func addOpenRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/sign-in", use: signIn)
    }

    @Sendable func issueSignInCode(_ request: Request, context: Context) async throws -> EditedResponse<IssuedSignInCode> {
        let issuer = try context.caller()
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let accountID = try context.parameters.require("id")
        // Refused before the account is looked up: the same 403 for every id, known or not.
        guard SignInCodePolicy.mayIssue(by: issuer.role, for: .passenger) else { throw APIError.forbidden(SignInCodePolicy.refusal) }
        guard let account = try await store.account(id: accountID) else { throw APIError.notFound("account \(accountID)") }
        guard SignInCodePolicy.mayIssue(by: issuer.role, for: account.role) else { throw APIError.forbidden(SignInCodePolicy.refusal) }
        let (record, digits) = SignInCodeHash.issue(accountID: accountID, by: issuer.id, now: now())
        _ = try await store.addSignInCode(record, codeHash: SignInCodeHash.of(digits, key: try codes.keyNow()), perDay: SignInCodeHash.perDay,
                                          perIssuerPerDay: SignInCodeHash.perIssuerPerDay)
        AdminAudit.record(context.logger, action: "sign-in-code.issue", actor: issuer.id, via: .api,
                          details: ["account_id": accountID, "code_id": record.id, "issued_by": issuer.id])
        return EditedResponse(status: .created, response: IssuedSignInCode(code: SignInCodeText.grouped(digits), accountID: accountID,
                                                                            expiresAt: record.expiresAt))
    }

    /// Each refusal (unknown, expired, used) has its own code and writes nothing. The attempt
    /// takes from the address's and the server's sign-in budgets before the body is read, and
    /// from the code's account's once known; only a good code gives them back, so a malformed
    /// body spends them too (`AuthenticationReservation`). The token expires `tokenLifetime`
    /// after the sign-in.
    @Sendable func signIn(_ request: Request, context: Context) async throws -> EditedResponse<SignedIn> {
        let address = limits.clientAddress(request, context: context)
        let reservation = try limits.reserveSignIn(address: address)
        let secret = APITokenSecret()
        let signedIn = try await limits.attempt(reservation) {
            let body = try await request.decodeStrict(SignInBody.self, context: context)
            guard let digits = SignInCodeText.normalized(body.code) else {
                throw APIError.invalidField("code", "must be the eight digits of a sign-in code, like 4821 0937")
            }
            let signedIn = try await codes.redeem(digits, secret: secret, reservation: reservation, expiresAt: now().addingTimeInterval(tokenLifetime),
                                                  logger: context.logger) { _ in }
            // A blank name is no name; a failure to name leaves the token working, unnamed.
            if let device = body.deviceName?.trimmingCharacters(in: .whitespaces), !device.isEmpty {
                try? await store.nameTokenDevice(id: signedIn.token.id, accountID: signedIn.account.id, deviceName: device)
            }
            return signedIn
        }
        return EditedResponse(status: .created, response: SignedIn(token: secret.text, tokenID: signedIn.token.id, account: signedIn.account))
    }

    @Sendable func listOwnTokens(_ request: Request, context: Context) async throws -> TokenList {
        let account = try context.caller()
        let current = try await context.tokenHash.asyncMap { try await store.token(secretHash: $0)?.id } ?? nil
        let tokens = try await store.tokens(accountID: account.id)
        return TokenList(tokens: tokens.map {
            TokenInfo(id: $0.id, createdAt: $0.createdAt, revokedAt: $0.revokedAt, expiresAt: $0.expiresAt, current: $0.id == current,
                      deviceName: $0.deviceName)
        })
    }

    /// One token, the caller's own; its open streams end at once (the store announces the
    /// revocation, here and to other servers).
    @Sendable func revokeOwnToken(_ request: Request, context: Context) async throws -> TokenInfo {
        let account = try context.caller()
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let tokenID = try context.parameters.require("id")
        let current = try await context.tokenHash.asyncMap { try await store.token(secretHash: $0)?.id } ?? nil
        let token = try await store.revokeToken(id: tokenID, accountID: account.id)
        AdminAudit.record(context.logger, action: "token.revoke", actor: account.id, via: .api, details: ["token_id": tokenID])
        return TokenInfo(id: token.id, createdAt: token.createdAt, revokedAt: token.revokedAt, expiresAt: token.expiresAt, current: token.id == current,
                         deviceName: token.deviceName)
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

extension IssuedSignInCode: ResponseGenerator, ResponseEncodable {}
extension SignedIn: ResponseGenerator, ResponseEncodable {}
extension TokenInfo: ResponseGenerator, ResponseEncodable {}
extension TokenList: ResponseGenerator, ResponseEncodable {}
extension SavedPlace: ResponseGenerator, ResponseEncodable {}
extension SavedPlaceList: ResponseGenerator, ResponseEncodable {}
