import ArgumentParser
import Foundation
import RideServer
import RideStore

/// One account's tokens, listed and revoked one at a time (a lost phone's, not all of them).
extension Admin {
    struct ListTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an account's tokens, newest first: id, created, status (active, revoked or expired), tab-separated.")

        @Argument(help: "Account id.")
        var account: String
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                guard try await store.account(id: account) != nil else { throw StoreError.notFound("account \(account)") }
                let now = Date()
                print(["id", "created", "status"].joined(separator: "\t"))
                for token in try await store.tokens(accountID: account) {
                    let status = token.revokedAt != nil ? "revoked" : token.expiresAt.map { $0 <= now } == true ? "expired" : "active"
                    print([token.id, PlainTable.date(token.createdAt), status].joined(separator: "\t"))
                }
            }
        }
    }

    struct RevokeToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke one token of an account (its other tokens keep working).")

        @Argument(help: "Account id.")
        var account: String
        @Argument(help: "Token id (from `ridebeacon admin list-tokens ACCOUNT`).")
        var token: String
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                let revoked = try await store.revokeToken(id: token, accountID: account)
                audit("token.revoke", ["account_id": account, "token_id": revoked.id])
                print("revoked \(revoked.id)")
            }
        }
    }
}
