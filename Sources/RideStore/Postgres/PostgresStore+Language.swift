import Foundation
import PostgresNIO

/// The language an account chose (see SQLiteStore+Language; table `account_language`).
extension PostgresStore {
    public func accountLanguage(accountID: String) async throws -> String? {
        try await mapped {
            try await self.db.query("SELECT language FROM account_language WHERE account_id = \(accountID)", logger: self.logger)
                .all { row in try row.decode(String.self) }.first
        }
    }

    public func setAccountLanguage(accountID: String, language: String?) async throws {
        try await transaction { conn in
            guard try await conn.query("SELECT 1 FROM account WHERE id = \(accountID)", logger: self.logger).all({ $0 }).count == 1 else {
                throw StoreError.notFound("account \(accountID)")
            }
            if let language {
                _ = try await conn.query("""
                    INSERT INTO account_language (account_id, language) VALUES (\(accountID), \(language))
                    ON CONFLICT (account_id) DO UPDATE SET language = EXCLUDED.language
                    """, logger: self.logger).all({ $0 })
            } else {
                _ = try await conn.query("DELETE FROM account_language WHERE account_id = \(accountID)", logger: self.logger).all({ $0 })
            }
        }
    }
}
