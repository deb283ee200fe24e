/// Issue 28, durability: each transition function (TransitionFunctions) called by a procedure
/// that commits before it answers. Installed by the migration `transition-functions-2`.
///
/// Why a procedure: a lone function call is its own implicit transaction, committed when the
/// server reaches the Sync message, after it has already sent the rows and CommandComplete;
/// PostgresNIO hands the rows back at CommandComplete, so the server could answer a write whose
/// commit record a power cut then lost (scripts/reliability/power_loss.py found one). Wrapping
/// the call in BEGIN … COMMIT made it durable at four round trips a write. A procedure called
/// on its own (not inside BEGIN) may COMMIT in its body, and `CALL` sends its OUT values after
/// the body has returned: with synchronous_commit on (or local, remote_*), COMMIT returns only
/// once the commit record is flushed, so the one row the client reads follows a durable commit
/// (and the write is visible to every session, its staged event to the next sequencing run).
/// What is left of the implicit transaction after the body's COMMIT is empty; Sync ends it.
///
/// A `CALL` passes NULL for each OUT argument (PostgreSQL 14 and later). A procedure that
/// raises (a racing idempotency key's 23505) has committed nothing: the statement rolls back
/// as the function call did.
enum TransitionProcedures {
    /// The IN arguments of each `_1` function, as (name, type), in order; the procedure passes
    /// them through unchanged.
    private static let transitions: [(name: String, arguments: [(String, String)], out: String)] = [
        ("create_request", [("p_account", "text"), ("p_key", "text"), ("p_operation", "text"), ("p_id", "text"), ("p_passenger", "text"),
                            ("p_name", "text"), ("p_pickup", "text"), ("p_dropoff", "text"), ("p_notes", "text"), ("p_now", "timestamptz"),
                            ("p_one_at_a_time", "boolean"), ("p_codes", "text[]")], answer),
        ("cancel_request", [("p_account", "text"), ("p_key", "text"), ("p_operation", "text"), ("p_id", "text"), ("p_actor", "text"),
                            ("p_reason", "text"), ("p_now", "timestamptz")], answer),
        ("accept", [("p_account", "text"), ("p_key", "text"), ("p_operation", "text"), ("p_request", "text"), ("p_driver", "text"),
                    ("p_ride", "text"), ("p_ride_key", "bytea"), ("p_one_at_a_time", "boolean"), ("p_actor", "text"), ("p_detail", "text"),
                    ("p_now", "timestamptz")], answer),
        ("move_ride", [("p_account", "text"), ("p_key", "text"), ("p_operation", "text"), ("p_ride", "text"), ("p_state", "text"),
                       ("p_from", "text[]"), ("p_actor", "text"), ("p_detail", "text"), ("p_now", "timestamptz")], answer),
        ("touch_proof", [("p_account", "text"), ("p_key", "text"), ("p_operation", "text"), ("p_ride", "text"), ("p_side", "text"),
                         ("p_prover", "text"), ("p_slot", "bigint"), ("p_uuid", "text"), ("p_major", "bigint"), ("p_minor", "bigint"),
                         ("p_rssi", "double precision"), ("p_samples", "bigint"), ("p_observed_at", "timestamptz"),
                         ("p_received_at", "timestamptz"), ("p_observed_from", "timestamptz"), ("p_observed_until", "timestamptz"),
                         ("p_mode", "text"), ("p_counterpart", "text"), ("p_earliest", "timestamptz"), ("p_latest", "timestamptz"),
                         ("p_from_bound", "timestamptz"), ("p_until_bound", "timestamptz"), ("p_observed_detail", "text"),
                         ("p_confirmed_detail", "text"), ("p_now", "timestamptz")], answer),
        ("request_locator", [("p_ride", "text"), ("p_actor", "text"), ("p_at", "timestamptz"), ("p_min_interval", "double precision")],
         "outcome_, info_, at_"),
    ]

    private static let answer = "outcome_, info_, result_"

    static let v2: [String] = transitions.map { name, arguments, out in
        let declared = arguments.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        let outs = out == answer ? "OUT outcome_ text, OUT info_ text, OUT result_ bytea" : "OUT outcome_ text, OUT info_ text, OUT at_ timestamptz"
        let passed = arguments.map(\.0).joined(separator: ", ")
        return """
            CREATE PROCEDURE rb_\(name)_2(\(declared), \(outs)) LANGUAGE plpgsql AS $$
            BEGIN
                SELECT * INTO \(out) FROM rb_\(name)_1(\(passed));
                COMMIT;
            END $$
            """
    }

    /// The procedures' names, for the tests.
    static let names = transitions.map { "rb_\($0.name)_2" }

    /// `CALL rb_<name>_2($1, …, $n, NULL, …)`: `n` arguments, then a NULL per OUT argument.
    static func call(_ name: String, arguments n: Int) -> String {
        "CALL rb_\(name)_2(" + ((1...n).map { "$\($0)" } + ["NULL", "NULL", "NULL"]).joined(separator: ", ") + ")"
    }
}
