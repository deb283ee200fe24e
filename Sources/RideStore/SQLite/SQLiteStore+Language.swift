import Foundation
import GRDB

/// The language an account chose for what the service writes to it (issue 26: the passenger
/// page in her language on any browser), kept beside the account (`accountLanguage`,
/// migration v11-account-language).
extension SQLiteStore {
    public func accountLanguage(accountID: String) async throws -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT language FROM accountLanguage WHERE accountID = ?", arguments: [accountID])
        }
    }

    public func setAccountLanguage(accountID: String, language: String?) async throws {
        try await write { db in
            guard try Account.exists(db, key: accountID) else { throw StoreError.notFound("account \(accountID)") }
            if let language {
                try db.execute(sql: """
                    INSERT INTO accountLanguage (accountID, language) VALUES (?, ?)
                    ON CONFLICT (accountID) DO UPDATE SET language = excluded.language
                    """, arguments: [accountID, language])
            } else {
                try db.execute(sql: "DELETE FROM accountLanguage WHERE accountID = ?", arguments: [accountID])
            }
        }
    }
}
