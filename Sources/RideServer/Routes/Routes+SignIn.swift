import Foundation
import Hummingbird
import RideStore

/// Getting in without typing a token: an admin or dispatcher issues a one-time eight-digit
/// sign-in code for an account, its holder exchanges it for a token (`/v1/sign-in`, the one
/// `/v1` route without a token), and lists or revokes their tokens one at a time.
extension RideAPI {
    func addSignInCodeRoutes(_ routes: RouteRegistrar) {
        routes.post("/accounts/{id}/sign-in-codes", use: issueSignInCode)
        routes.get("/tokens", use: listOwnTokens)
        routes.post("/tokens/{id}/revoke", use: revokeOwnToken)
    }

    /// Outside the token check: whoever holds a code has no token yet.
    func addSignInRoutes(_ routes: RouteRegistrar) {
        routes.post("/sign-in", use: signIn)
    }

    @Sendable func issueSignInCode(_ request: Request, context: RideContext) async throws -> EditedResponse<IssuedSignInCode> {
        let issuer = try context.caller(in: [.admin, .dispatcher], to: "issue sign-in codes")
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let accountID = try context.parameters.require("id")
        guard let account = try await store.account(id: accountID) else { throw APIError.notFound("account \(accountID)") }
        // Dispatchers let passengers and drivers in; only admins may hand out staff access.
        if issuer.role == .dispatcher && ![Role.passenger, .driver].contains(account.role) {
            throw APIError.forbidden("a dispatcher may issue sign-in codes only for passengers and drivers")
        }
        let (record, digits) = SignInCodeHash.issue(accountID: accountID, by: issuer.id, now: now())
        _ = try await store.addSignInCode(record, codeHash: SignInCodeHash.of(digits), perDay: SignInCodeHash.perDay)
        AdminAudit.record(context.logger, action: "sign-in-code.issue", actor: issuer.id, via: .api,
                          details: ["account_id": accountID, "code_id": record.id])
        return EditedResponse(status: .created, response: IssuedSignInCode(code: SignInCodeText.grouped(digits), accountID: accountID,
                                                                            expiresAt: record.expiresAt))
    }

    /// Each refusal (unknown, expired, used) has its own code and writes nothing; every refusal
    /// counts as a failed authentication, so guessing eight digits is throttled per address.
    @Sendable func signIn(_ request: Request, context: RideContext) async throws -> EditedResponse<SignedIn> {
        let address = limits.clientAddress(request, context: context)
        try limits.checkAuthentication(address: address, token: nil)
        let body = try await request.decodeStrict(SignInBody.self, context: context)
        guard let digits = SignInCodeText.normalized(body.code) else {
            throw APIError.invalidField("code", "must be the eight digits of a sign-in code, like 4821 0937")
        }
        let secret = APITokenSecret()
        do {
            let signedIn = try await store.redeemSignInCode(codeHash: SignInCodeHash.of(digits), tokenSecretHash: secret.hash,
                                                            tokenExpiresAt: nil, now: now())
            AdminAudit.record(context.logger, action: "sign-in", actor: signedIn.account.id, via: .api,
                              details: ["token_id": signedIn.token.id])
            return EditedResponse(status: .created, response: SignedIn(token: secret.text, tokenID: signedIn.token.id, account: signedIn.account))
        } catch let error as StoreError {
            if case .signInRefused = error { limits.authenticationFailed(address: address, token: nil) }
            throw error
        }
    }

    @Sendable func listOwnTokens(_ request: Request, context: RideContext) async throws -> TokenList {
        let account = try context.caller()
        let current = try await context.tokenHash.asyncMap { try await store.token(secretHash: $0)?.id } ?? nil
        let tokens = try await store.tokens(accountID: account.id)
        return TokenList(tokens: tokens.map {
            TokenInfo(id: $0.id, createdAt: $0.createdAt, revokedAt: $0.revokedAt, expiresAt: $0.expiresAt, current: $0.id == current)
        })
    }

    /// One token, the caller's own; its open streams end at once (here; other servers hear it
    /// from the store).
    @Sendable func revokeOwnToken(_ request: Request, context: RideContext) async throws -> TokenInfo {
        let account = try context.caller()
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let tokenID = try context.parameters.require("id")
        let current = try await context.tokenHash.asyncMap { try await store.token(secretHash: $0)?.id } ?? nil
        let token = try await store.revokeToken(id: tokenID, accountID: account.id)
        hub.tokensRevoked()
        AdminAudit.record(context.logger, action: "token.revoke", actor: account.id, via: .api, details: ["token_id": tokenID])
        return TokenInfo(id: token.id, createdAt: token.createdAt, revokedAt: token.revokedAt, expiresAt: token.expiresAt, current: token.id == current)
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
