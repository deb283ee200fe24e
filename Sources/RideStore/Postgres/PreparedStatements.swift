import Foundation
import PostgresNIO

// The hot statements, prepared: PostgreSQL parses and plans each once per connection. As
// ad-hoc queries they were parsed and planned on every request, and PostgreSQL spent more CPU
// on that than the server on everything else of a ride GET (BENCHMARKS.md, "Ride server").

struct AuthenticateStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT a.id, a.role, a.display_name, a.vehicle, a.created_at FROM account a
        JOIN api_token t ON t.account_id = a.id WHERE t.secret_hash = $1 AND t.revoked_at IS NULL
        AND (t.expires_at IS NULL OR t.expires_at > $2)
        """
    typealias Row = Account
    var secretHash: Data
    var now: Date

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        try bindings.append(secretHash)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Account { try Account(row: row) }
}

struct RideDetailStatement: PostgresPreparedStatement {
    static let sql = "SELECT \(PGColumns.rideDetail) WHERE r.id = $1"
    typealias Row = RideDetail
    var id: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(id)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> RideDetail { try RideDetail(row: row) }
}

/// One page of active rides (dispatchers), keyset-paged after a ride id ('' for the first page).
struct ActiveRideDetailsStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT \(PGColumns.rideDetail) WHERE r.state NOT IN ('completed', 'cancelled')
        AND ($1 = '' OR (r.created_at, r.id) > (SELECT created_at, id FROM ride WHERE id = $1))
        ORDER BY r.created_at, r.id LIMIT $2
        """
    typealias Row = RideDetail
    var after: String
    var limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(after)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> RideDetail { try RideDetail(row: row) }
}

/// One page of an account's rides, any state, keyset-paged like the active ones.
struct ParticipantRideDetailsStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT \(PGColumns.rideDetail) WHERE (r.passenger_id = $1 OR r.driver_id = $1)
        AND ($2 = '' OR (r.created_at, r.id) > (SELECT created_at, id FROM ride WHERE id = $2))
        ORDER BY r.created_at, r.id LIMIT $3
        """
    typealias Row = RideDetail
    var account: String
    var after: String
    var limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(account)
        bindings.append(after)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> RideDetail { try RideDetail(row: row) }
}

/// Every write's event, staged (`appendEvent`): its per-request sequence counts the sequenced
/// and the staged events.
struct StageEventStatement: PostgresPreparedStatement {
    static let sql = """
        INSERT INTO ride_event_pending (request_id, ride_id, sequence, kind, state, actor_id, at, detail)
        SELECT $1, $2, COALESCE(MAX(sequence), 0) + 1, $3, $4, $5, $6, $7 FROM (
            SELECT sequence FROM ride_event WHERE request_id = $1
            UNION ALL SELECT sequence FROM ride_event_pending WHERE request_id = $1) AS known
        """
    typealias Row = Void
    var requestID: String
    var rideID: String?
    var kind: String
    var state: String
    var actor: String
    var at: Date
    var detail: String?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(requestID)
        bindings.append(rideID)
        bindings.append(kind)
        bindings.append(state)
        bindings.append(actor)
        bindings.append(at)
        bindings.append(detail)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// Every write's sequencing run (`sequenceEvents`), under the sequencing lock.
struct MoveStagedEventsStatement: PostgresPreparedStatement {
    static let sql = """
        WITH moved AS (DELETE FROM ride_event_pending RETURNING *),
        appended AS (
            INSERT INTO ride_event (request_id, ride_id, sequence, kind, state, actor_id, at, detail)
            SELECT request_id, ride_id, sequence, kind, state, actor_id, at, detail FROM moved ORDER BY pending_id
            RETURNING id)
        SELECT pg_notify($1, MAX(id)::text) FROM appended HAVING COUNT(*) > 0
        """
    typealias Row = Void
    var channel: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

extension PostgresClient {
    /// Every row of a prepared statement.
    func all<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}
