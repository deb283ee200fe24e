import Foundation
import PostgresNIO

// The statements on the hot paths, prepared: PostgreSQL parses and plans each once per
// connection. As ad-hoc queries they were parsed and planned on every request, and PostgreSQL
// spent more CPU on that than the server on everything else of a ride GET, and on each of a
// write's eight to ten statements (BENCHMARKS.md, "Ride server"). Each statement is a type
// naming its SQL; `Prepared` binds the values of one execution.

/// A statement's text; the type's name is the prepared statement's name. A `SendableMetatype`:
/// a `Prepared<SQL>` is made in one task and run in another (`mapped`), its `SQL.Type` with it.
protocol PreparedSQL: SendableMetatype { static var sql: String { get } }

/// One execution of `SQL` with its values, rows left undecoded.
struct Prepared<SQL: PreparedSQL>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    static var sql: String { SQL.sql }
    private let bindings: PostgresBindings

    init<each Value: PreparedValue>(_ value: repeat each Value) throws {
        var bindings = PostgresBindings()
        for value in repeat each value { try value.bind(to: &bindings) }
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// A value a `Prepared` statement binds; `nil` binds NULL (its type comes from the statement).
protocol PreparedValue { func bind(to bindings: inout PostgresBindings) throws }

extension PreparedValue where Self: PostgresThrowingDynamicTypeEncodable {
    func bind(to bindings: inout PostgresBindings) throws { try bindings.append(self, context: .default) }
}

extension String: PreparedValue {}
extension Date: PreparedValue {}
extension Data: PreparedValue {}
extension Int32: PreparedValue {}
extension Int: PreparedValue {}
extension Int64: PreparedValue {}
extension Double: PreparedValue {}
extension Bool: PreparedValue {}
extension Array: PreparedValue where Element == String {}

extension Optional: PreparedValue where Wrapped: PreparedValue {
    func bind(to bindings: inout PostgresBindings) throws {
        switch self {
        case .none: bindings.appendNull()
        case .some(let value): try value.bind(to: &bindings)
        }
    }
}

extension PostgresClient {
    /// Every row of `statement` on a pooled connection, decoded by `decode`.
    func rows<SQL, T>(_ statement: Prepared<SQL>, logger: Logger, _ decode: (PostgresRow) throws -> T) async throws -> [T] {
        var decoded: [T] = []
        for try await row in try await execute(statement, logger: logger) { decoded.append(try decode(row)) }
        return decoded
    }
}

extension PostgresConnection {
    /// Every row of `statement`, decoded by `decode`.
    func rows<SQL, T>(_ statement: Prepared<SQL>, logger: Logger, _ decode: (PostgresRow) throws -> T) async throws -> [T] {
        var decoded: [T] = []
        for try await row in try await execute(statement, logger: logger) { decoded.append(try decode(row)) }
        return decoded
    }

    /// Runs `statement` to its end, its rows (if any) dropped. Drained rather than through
    /// PostgresNIO's command-tag overload, which trapped ("commandTag may only be called if all
    /// rows have been consumed").
    func run<SQL>(_ statement: Prepared<SQL>, logger: Logger) async throws {
        for try await _ in try await execute(statement, logger: logger) {}
    }
}

/// The hot reads and every write's event staging and sequencing.
enum ReadSQL {
    enum Authenticate: PreparedSQL {
        static let sql = """
            SELECT a.id, a.role, a.display_name, a.vehicle, a.created_at, a.vehicle_colour, a.vehicle_make, a.vehicle_model,
            a.vehicle_plate FROM account a
            JOIN api_token t ON t.account_id = a.id WHERE t.secret_hash = $1 AND t.revoked_at IS NULL
            AND (t.expires_at IS NULL OR t.expires_at > $2)
            """
    }
    enum RideDetail: PreparedSQL { static let sql = "SELECT \(PGColumns.rideDetail) WHERE r.id = $1" }
    /// A ride by id (the locator's and the transitions' routes check its passenger or driver).
    enum Ride: PreparedSQL { static let sql = "SELECT \(PGColumns.ride) FROM ride WHERE id = $1" }
    enum AccountByID: PreparedSQL { static let sql = "SELECT \(PGColumns.account) FROM account WHERE id = $1" }
    /// A ride's history after an event id (every ride stream's resume and catch-up).
    enum RideEvents: PreparedSQL {
        static let sql = "SELECT \(PGColumns.event) FROM ride_event WHERE request_id = (SELECT request_id FROM ride WHERE id = $1) AND id > $2 ORDER BY id"
    }
    /// The whole history after an event id, a page at a time: every event hub's catch-up, on
    /// every wake-up (under load, hundreds a second per server).
    enum EventsAfter: PreparedSQL {
        static let sql = "SELECT \(PGColumns.event) FROM ride_event WHERE id > $1 ORDER BY id LIMIT $2"
    }
    /// One page of open ride requests (drivers, dispatchers), keyset-paged like the rides below.
    enum OpenRideRequests: PreparedSQL {
        static let sql = """
            SELECT \(PGColumns.request) FROM ride_request WHERE status = 'open'
            AND ($1 = '' OR (created_at, id) > (SELECT created_at, id FROM ride_request WHERE id = $1))
            ORDER BY created_at, id LIMIT $2
            """
    }
    /// One page of active rides (dispatchers), keyset-paged after a ride id ('' for the first page).
    enum ActiveRideDetails: PreparedSQL {
        static let sql = """
            SELECT \(PGColumns.rideDetail) WHERE r.state NOT IN ('completed', 'cancelled')
            AND ($1 = '' OR (r.created_at, r.id) > (SELECT created_at, id FROM ride WHERE id = $1))
            ORDER BY r.created_at, r.id LIMIT $2
            """
    }
    /// One page of an account's rides, any state, keyset-paged like the active ones. (Not one
    /// statement with the active page: PostgreSQL would plan both conditions into each.)
    enum ParticipantRideDetails: PreparedSQL {
        static let sql = """
            SELECT \(PGColumns.rideDetail) WHERE (r.passenger_id = $1 OR r.driver_id = $1)
            AND ($2 = '' OR (r.created_at, r.id) > (SELECT created_at, id FROM ride WHERE id = $2))
            ORDER BY r.created_at, r.id LIMIT $3
            """
    }
}

/// Every write's event, staged (`appendEvent`), and the sequencing run that moves staged events
/// into the history (`sequenceEvents`, under the sequencing lock).
enum EventSQL {
    /// Its per-request sequence counts the sequenced and the staged events.
    enum Stage: PreparedSQL {
        static let sql = """
            INSERT INTO ride_event_pending (request_id, ride_id, sequence, kind, state, actor_id, at, detail)
            SELECT $1, $2, COALESCE(MAX(sequence), 0) + 1, $3, $4, $5, $6, $7 FROM (
                SELECT sequence FROM ride_event WHERE request_id = $1
                UNION ALL SELECT sequence FROM ride_event_pending WHERE request_id = $1) AS known
            """
    }
}

/// The keyed writes' stored results (the writes that are not one transition function yet).
enum WriteSQL {
    enum IdempotentResult: PreparedSQL {
        static let sql = "SELECT operation, result FROM idempotency WHERE account_id = $1 AND key = $2"
    }
    enum StoreIdempotentResult: PreparedSQL {
        static let sql = "INSERT INTO idempotency (account_id, key, operation, result, created_at) VALUES ($1, $2, $3, $4, $5)"
    }
}
