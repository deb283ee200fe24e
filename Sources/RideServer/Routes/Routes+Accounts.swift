import Hummingbird
import RideStore

/// `/v1/accounts`: admins manage accounts and their tokens.
struct AccountRoutes<Context: RideRequestContext>: Sendable {
    let store: any AccountStore

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.get("/accounts", use: listAccounts)
        routes.post("/accounts", use: createAccount)
        routes.post("/accounts/{id}/tokens", use: issueToken)
        routes.post("/accounts/{id}/revoke-tokens", use: revokeTokens)
    }

    @Sendable func listAccounts(_ request: Request, context: Context) async throws -> AccountList {
        _ = try context.caller(in: [.admin], to: "list accounts")
        return AccountList(accounts: try await store.accounts())
    }

    @Sendable func createAccount(_ request: Request, context: Context) async throws -> EditedResponse<Account> {
        let admin = try context.caller(in: [.admin], to: "create accounts")
        let key = try request.idempotencyKey(account: admin)
        let body = try await request.decodeStrict(NewAccountBody.self, context: context)
        guard let new = body.model else { throw APIError.invalidField("role", "is not a role") }
        let account = try await store.createAccount(new, idempotency: key)
        AdminAudit.record(context.logger, action: "account.create", actor: admin.id, via: .api,
                          details: ["account_id": account.id, "role": account.role.rawValue])
        return EditedResponse(status: .created, response: account)
    }

    /// The secret is shown once and never stored, so a retry with the same Idempotency-Key
    /// cannot repeat it: that is a 409 telling the client to revoke and issue again.
    @Sendable func issueToken(_ request: Request, context: Context) async throws -> EditedResponse<IssuedToken> {
        let admin = try context.caller(in: [.admin], to: "issue tokens")
        let key = try request.idempotencyKey(account: admin)
        let body = try await request.decodeStrict(IssueTokenBody.self, context: context)
        let accountID = try context.parameters.require("id")
        let secret = APITokenSecret()
        let expiresAt = TokenExpiry.date(afterDays: body.expiresInDays ?? TokenExpiry.adminIssuedDays)
        let issue = try await store.addToken(accountID: accountID, secretHash: secret.hash, expiresAt: expiresAt, idempotency: key)
        if issue.isReplay {
            throw APIError(.conflict, code: .tokenAlreadyIssued,
                           "this Idempotency-Key already issued token \(issue.token.id); its secret was shown once. Revoke and issue a new one if it was lost")
        }
        AdminAudit.record(context.logger, action: "token.issue", actor: admin.id, via: .api,
                          details: ["account_id": accountID, "token_id": issue.token.id])
        let view = IssuedToken(token: secret.text, tokenID: issue.token.id, accountID: accountID,
                                  createdAt: issue.token.createdAt, expiresAt: issue.token.expiresAt)
        return EditedResponse(status: .created, response: view)
    }

    @Sendable func revokeTokens(_ request: Request, context: Context) async throws -> RevokedTokens {
        let admin = try context.caller(in: [.admin], to: "revoke tokens")
        let key = try request.idempotencyKey(account: admin)
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        let accountID = try context.parameters.require("id")
        guard try await store.account(id: accountID) != nil else { throw APIError.notFound("account \(accountID)") }
        let revoked = try await store.revokeTokens(accountID: accountID, idempotency: key)
        // Their open streams end now: the store announces the revocation (here and to other servers).
        AdminAudit.record(context.logger, action: "tokens.revoke", actor: admin.id, via: .api,
                          details: ["account_id": accountID, "revoked": "\(revoked)"])
        return RevokedTokens(accountID: accountID, revoked: revoked)
    }
}
