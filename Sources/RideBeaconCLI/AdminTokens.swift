import ArgumentParser
import Foundation
import Phrasebook
import RideServer
import RideStore

/// One account's tokens, listed and revoked one at a time (a lost phone's, not all of them).
extension Admin {
    struct ListTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an account's tokens, newest first: id, created, status (active, revoked or expired), tab-separated.")

        @Argument(help: ArgumentHelp("The account's name (any case), or the start of its id.", valueName: "ACCOUNT"))
        var account: String
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                let account = try Admin.accounts(try await store.accounts()).pick(self.account).id
                let now = Date()
                print(["id", "device", "created", "status"].joined(separator: "\t"))
                for token in try await store.tokens(accountID: account) {
                    print([token.id, token.deviceName ?? "-", PlainTable.date(token.createdAt), Admin.status(token, now: now)].joined(separator: "\t"))
                }
            }
        }
    }

    struct RevokeToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke one token of an account (its other tokens keep working).")

        @Argument(help: ArgumentHelp("The account's name (any case), or the start of its id.", valueName: "ACCOUNT"))
        var account: String
        @Argument(help: ArgumentHelp("The token: its handle or a unique start of its id (from `ridebeacon admin list-tokens ACCOUNT`), or its device name.", valueName: "TOKEN"))
        var token: String
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                let account = try Admin.accounts(try await store.accounts()).pick(self.account).id
                let now = Date()
                let tokens = try await store.tokens(accountID: account)
                let book = PersonalBook.current
                let chosen = try WhichOne(kind: "token", items: tokens, id: \.id, name: \.deviceName,
                                          describe: { "\($0.handle) (\($0.deviceName ?? book(.adminNoDeviceName)), \(PlainTable.date($0.createdAt)), \(Admin.status($0, now: now, in: book)))" },
                                          listCommand: "ridebeacon admin list-tokens \(self.account)").pick(token, in: book)
                let revoked = try await store.revokeToken(id: chosen.id, accountID: account)
                audit("token.revoke", ["account_id": account, "token_id": revoked.id])
                print(book(.adminRevoked, ["id": .text(revoked.id)]))
            }
        }
    }

    /// Accounts by name or id start, for every admin command that names one.
    static func accounts(_ all: [Account]) -> WhichOne<Account> {
        WhichOne(kind: "account", items: all, id: \.id, name: \.displayName,
                 describe: { "\($0.displayName) (\($0.role.rawValue), \(String($0.id.prefix(6))))" },
                 listCommand: "ridebeacon admin list-accounts")
    }

    /// "active", "revoked" or "expired": English in `list-tokens`' tab-separated lines (scripts
    /// read them), `book`'s words where a person reads the token in a sentence.
    static func status(_ token: APIToken, now: Date, in book: Phrasebook = .english) -> String {
        token.revokedAt != nil ? book(.adminTokenRevoked) : token.expiresAt.map { $0 <= now } == true ? book(.adminTokenExpired) : book(.adminTokenActive)
    }

    /// The role as `admin create-account`'s sentence names it ("driver", "conductor").
    static func roleWord(_ role: Role, in book: Phrasebook) -> String {
        switch role {
        case .passenger: book(.cliRolePassenger)
        case .driver: book(.cliRoleDriver)
        case .dispatcher: book(.cliRoleDispatcher)
        case .admin: book(.cliRoleAdmin)
        }
    }
}
