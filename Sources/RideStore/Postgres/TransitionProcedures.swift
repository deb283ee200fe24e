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
///
/// `v2` and `v3` are shipped migrations' SQL: `v2` is generated from `transitions`, so editing
/// that list edits the migration; change a transition in a new migration (`_4` names) instead.
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

    /// Migration `transition-functions-3`: the sequencing run (`rb_sequence_events_1`) the same
    /// way, and a ride note in one procedure. A write answers once its run has answered, saying its event is in the history; a
    /// lone run's answer preceded its commit, so a client reading the history at once could
    /// miss the event (not yet visible), and a power cut could undo the move (the event then
    /// moved again later, under another id than a listener had seen).
    static let v3: [String] = [
        """
        CREATE PROCEDURE rb_sequence_events_3(p_channel text) LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM rb_sequence_events_1(p_channel);
            COMMIT;
        END $$
        """,
        // A ride note (a message to the ride, the locator's answers: PostgresStore+Notes), one
        // round trip instead of a transaction of four to five: the ride's row lock, its state
        // among p_states, an earlier event of p_earlier (staged counts) when given, the staged
        // event. Answers 'ok' (info_: the request's id, to read the event back by),
        // 'not-found', 'illegal' (info_: the state) or 'nothing-to-answer'; only 'ok' wrote.
        """
        CREATE PROCEDURE rb_record_note_3(p_ride text, p_kind text, p_states text[], p_earlier text, p_actor text, p_at timestamptz,
            p_detail text, OUT outcome_ text, OUT info_ text) LANGUAGE plpgsql AS $$
        DECLARE
            r ride;
        BEGIN
            SELECT * INTO r FROM ride WHERE id = p_ride FOR UPDATE;
            IF NOT FOUND THEN outcome_ := 'not-found'; RETURN; END IF;
            IF NOT r.state = ANY(p_states) THEN outcome_ := 'illegal'; info_ := r.state; RETURN; END IF;
            IF p_earlier IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ride_event WHERE ride_id = p_ride AND kind = p_earlier)
                AND NOT EXISTS (SELECT 1 FROM ride_event_pending WHERE ride_id = p_ride AND kind = p_earlier) THEN
                outcome_ := 'nothing-to-answer'; RETURN;
            END IF;
            PERFORM rb_stage_event_1(r.request_id, p_ride, p_kind, r.state, p_actor, p_at, p_detail);
            COMMIT;
            outcome_ := 'ok'; info_ := r.request_id;
        END $$
        """,
    ]

    /// Migration `transition-functions-4`: the locator and a ride note in one round trip. Each
    /// answers with the event it wrote, which needs its id from a sequencing run: after the
    /// write's COMMIT (durable, and visible to the run that follows), the procedure runs one
    /// itself (serialised with every other run by the sequencing lock; it moves every waiting
    /// event, as any run does), commits it (its NOTIFY goes out), and reads the event by the
    /// (request, sequence) it staged, read before the first COMMIT while the ride's row lock
    /// still made it the request's newest. Before, the answer took three round trips: the write,
    /// the server's shared run, and a read of "the request's newest event of this kind", which
    /// a second note staged in between could have answered instead.
    /// OUT: (outcome_, info_, at_) as `rb_request_locator_1`'s, then the event's columns.
    static let v4: [String] = [
        sequencedEventProcedure("rb_request_locator_4",
                                arguments: "p_ride text, p_actor text, p_at timestamptz, p_min_interval double precision",
                                write: "SELECT * INTO outcome_, info_, at_ FROM rb_request_locator_1(p_ride, p_actor, p_at, p_min_interval);"),
        // rb_record_note_3's steps.
        sequencedEventProcedure("rb_record_note_4", arguments: """
            p_ride text, p_kind text, p_states text[], p_earlier text, p_actor text, p_at timestamptz, p_detail text
            """, write: """
            SELECT * INTO r FROM ride WHERE id = p_ride FOR UPDATE;
                IF NOT FOUND THEN outcome_ := 'not-found'; RETURN; END IF;
                IF NOT r.state = ANY(p_states) THEN outcome_ := 'illegal'; info_ := r.state; RETURN; END IF;
                IF p_earlier IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ride_event WHERE ride_id = p_ride AND kind = p_earlier)
                    AND NOT EXISTS (SELECT 1 FROM ride_event_pending WHERE ride_id = p_ride AND kind = p_earlier) THEN
                    outcome_ := 'nothing-to-answer'; RETURN;
                END IF;
                PERFORM rb_stage_event_1(r.request_id, p_ride, p_kind, r.state, p_actor, p_at, p_detail);
                outcome_ := 'ok'; info_ := r.request_id;
            """),
    ]

    /// Migration `transition-functions-keyed-notes`: a ride note with an Idempotency-Key (a
    /// passenger's message), still one round trip. `rb_record_note_4`'s steps, with the key's
    /// answer stored in the note's transaction: the event's (request, sequence), since its id
    /// comes only from the sequencing run after that COMMIT. Under the ride's row lock (so a
    /// racing retry of the same message waits for the first and then finds its answer) a stored
    /// answer for another operation is 'key-reused'; for this one 'replay', which writes nothing
    /// and reads the first event back, sequencing it first if it is still staged (its writer
    /// stopped before its run, or is running it now). Without a key (p_account NULL) it is
    /// `rb_record_note_4`. OUT: as `rb_record_note_4`'s.
    static let v5: [String] = [
        """
        CREATE PROCEDURE rb_record_note_5(p_account text, p_key text, p_operation text, p_ride text, p_kind text, p_states text[],
            p_earlier text, p_actor text, p_at timestamptz, p_detail text, p_now timestamptz, p_channel text,
            OUT outcome_ text, OUT info_ text, OUT at_ timestamptz, OUT id_ bigint, OUT request_ text, OUT ride_ text,
            OUT sequence_ integer, OUT kind_ text, OUT state_ text, OUT actor_ text, OUT event_at_ timestamptz, OUT detail_ text)
        LANGUAGE plpgsql AS $$
        DECLARE
            r ride;
            stored record;
            answer jsonb;
        BEGIN
            SELECT * INTO r FROM ride WHERE id = p_ride FOR UPDATE;
            IF NOT FOUND THEN outcome_ := 'not-found'; RETURN; END IF;
            SELECT * INTO stored FROM rb_stored_result_1(p_account, p_key);
            IF stored.operation_ IS NOT NULL THEN
                IF stored.operation_ <> p_operation THEN outcome_ := 'key-reused'; RETURN; END IF;
                answer := convert_from(stored.result_, 'UTF8')::jsonb;
                outcome_ := 'replay'; info_ := answer ->> 'requestID'; sequence_ := (answer ->> 'sequence')::integer;
            ELSE
                IF NOT r.state = ANY(p_states) THEN outcome_ := 'illegal'; info_ := r.state; RETURN; END IF;
                IF p_earlier IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ride_event WHERE ride_id = p_ride AND kind = p_earlier)
                    AND NOT EXISTS (SELECT 1 FROM ride_event_pending WHERE ride_id = p_ride AND kind = p_earlier) THEN
                    outcome_ := 'nothing-to-answer'; RETURN;
                END IF;
                PERFORM rb_stage_event_1(r.request_id, p_ride, p_kind, r.state, p_actor, p_at, p_detail);
                outcome_ := 'ok'; info_ := r.request_id;
                SELECT MAX(sequence) INTO sequence_ FROM ride_event_pending WHERE request_id = info_;
                PERFORM rb_store_result_1(p_account, p_key, p_operation, jsonb_build_object('requestID', info_, 'sequence', sequence_), p_now);
            END IF;
            COMMIT;
            IF NOT EXISTS (SELECT 1 FROM ride_event WHERE request_id = info_ AND sequence = sequence_) THEN
                PERFORM rb_sequence_events_1(p_channel);
                COMMIT;
            END IF;
            SELECT id, request_id, ride_id, kind, state, actor_id, at, detail
            INTO id_, request_, ride_, kind_, state_, actor_, event_at_, detail_
            FROM ride_event WHERE request_id = info_ AND sequence = sequence_;
        END $$
        """,
    ]

    /// A procedure that runs `write` (which sets outcome_, and info_ to the request's id when it
    /// staged an event), then on 'ok' commits, sequences, commits and reads the event back.
    private static func sequencedEventProcedure(_ name: String, arguments: String, write: String) -> String {
        """
        CREATE PROCEDURE \(name)(\(arguments), p_channel text,
            OUT outcome_ text, OUT info_ text, OUT at_ timestamptz, OUT id_ bigint, OUT request_ text, OUT ride_ text,
            OUT sequence_ integer, OUT kind_ text, OUT state_ text, OUT actor_ text, OUT event_at_ timestamptz, OUT detail_ text)
        LANGUAGE plpgsql AS $$
        DECLARE
            r ride;
        BEGIN
            \(write)
            IF outcome_ <> 'ok' THEN RETURN; END IF;
            SELECT MAX(sequence) INTO sequence_ FROM ride_event_pending WHERE request_id = info_;
            COMMIT;
            PERFORM rb_sequence_events_1(p_channel);
            COMMIT;
            SELECT id, request_id, ride_id, kind, state, actor_id, at, detail
            INTO id_, request_, ride_, kind_, state_, actor_, event_at_, detail_
            FROM ride_event WHERE request_id = info_ AND sequence = sequence_;
        END $$
        """
    }

    /// The procedures' names, for the tests.
    static let names = transitions.map { "rb_\($0.name)_2" }
}
