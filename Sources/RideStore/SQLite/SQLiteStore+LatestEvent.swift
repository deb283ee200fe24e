import Foundation
import GRDB

extension SQLiteStore {
    /// By the index (rideID, kind, id) of migration `bounded-ride-notes`.
    public func latestEvent(rideID: String, kinds: Set<RideEventKind>) async throws -> RideEvent? {
        guard !kinds.isEmpty else { return nil }
        let names = kinds.map(\.rawValue).sorted()
        return try await read { db in
            try RideEvent.fetchOne(db, sql: """
                SELECT * FROM rideEvent WHERE rideID = ? AND kind IN (\(names.map { _ in "?" }.joined(separator: ", ")))
                ORDER BY id DESC LIMIT 1
                """, arguments: StatementArguments([rideID] + names))
        }
    }

    public func events(rideID: String, after id: Int64, limit: Int) async throws -> [RideEvent] {
        try await read { db in
            try RideEvent.fetchAll(db, sql: """
                SELECT * FROM rideEvent WHERE requestID = (SELECT requestID FROM ride WHERE id = ?) AND id > ? ORDER BY id LIMIT ?
                """, arguments: [rideID, id, limit])
        }
    }
}
