/// Issue 28: each ride transition is one statement, a PL/pgSQL function that takes the locks,
/// checks the state, writes the row, stages the event and stores the keyed write's result,
/// returning the answer or the refusal's reason in the same round trip (called through the
/// procedures of TransitionProcedures, which commit before answering). Installed by the
/// migration `transition-functions-1` (PostgresMigrations); the `_1` in every name is that
/// migration's: a later change adds `_2` functions in a new migration (old servers keep calling
/// theirs until they stop, and a database with a migration this binary does not know is
/// refused like any newer schema), never `CREATE OR REPLACE` of a shipped one.
///
/// Every function answers one row `(outcome_, info_, result_)`:
///   ok / replay   result_: the answer as JSON (the stored result of a keyed write on replay)
///   key-reused    the idempotency key was used for another operation
///   not-found     no such ride or request
///   illegal       info_: the state it is in
///   busy          info_: the ride or request the account already holds
///   taken         another driver accepted the request
///   no-code       no free short code among the candidates
///   proof-replayed  the proof was already recorded
///   too-soon      (the locator) at_: the last request's time
/// The advisory-lock keys are interpolated from `AdvisoryLock`, their one definition; this
/// migration is frozen (applied databases ran its text), so SchemaMigrationTests checks the
/// interpolated text is still exactly what shipped.
/// The JSON is what `JSONEncoder` makes of the Swift record (dates as seconds since 2001), so
/// results stored by either path replay through one decoder (`PostgresStore.resultDecoder`).
/// The steps mirror the Swift they replace; their comments are in git history
/// (PostgresStore+Rides.swift etc. before issue 28).
enum TransitionFunctions {
    static let v1: [String] = [
        // The event staging every write did (EventSQL.Stage): per-request sequence over the
        // sequenced and the staged events; the caller holds the row or booking lock. The
        // helpers are PL/pgSQL, whose statements are planned once per connection (a SQL
        // function called from PL/pgSQL is parsed and planned again in every transaction).
        """
        CREATE FUNCTION rb_stage_event_1(p_request text, p_ride text, p_kind text, p_state text, p_actor text, p_at timestamptz, p_detail text)
        RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO ride_event_pending (request_id, ride_id, sequence, kind, state, actor_id, at, detail)
            SELECT p_request, p_ride, COALESCE(MAX(sequence), 0) + 1, p_kind, p_state, p_actor, p_at, p_detail FROM (
                SELECT sequence FROM ride_event WHERE request_id = p_request
                UNION ALL SELECT sequence FROM ride_event_pending WHERE request_id = p_request) AS known;
        END $$
        """,
        "CREATE FUNCTION rb_json_time_1(t timestamptz) RETURNS numeric IMMUTABLE LANGUAGE sql AS $$ SELECT extract(epoch FROM t) - 978307200 $$",
        """
        CREATE FUNCTION rb_ride_json_1(r ride) RETURNS jsonb STABLE LANGUAGE plpgsql AS $$
        BEGIN
            RETURN jsonb_strip_nulls(jsonb_build_object('id', r.id, 'requestID', r.request_id, 'passengerID', r.passenger_id,
                'driverID', r.driver_id, 'state', r.state, 'key', translate(encode(r.key, 'base64'), E'\\n', ''),
                'createdAt', rb_json_time_1(r.created_at), 'stateChangedAt', rb_json_time_1(r.state_changed_at),
                'shortCode', r.short_code, 'etaMinutes', r.eta_minutes, 'etaGivenAt', rb_json_time_1(r.eta_given_at)));
        END $$
        """,
        """
        CREATE FUNCTION rb_request_json_1(q ride_request) RETURNS jsonb STABLE LANGUAGE plpgsql AS $$
        BEGIN
            RETURN jsonb_strip_nulls(jsonb_build_object('id', q.id, 'passengerID', q.passenger_id, 'passengerName', q.passenger_name,
                'pickup', q.pickup, 'dropoff', q.dropoff, 'accessibilityNotes', q.accessibility_notes, 'status', q.status,
                'createdAt', rb_json_time_1(q.created_at), 'rideID', q.ride_id, 'shortCode', q.short_code));
        END $$
        """,
        // A keyed write's stored result: NULL when there is none (or no key).
        """
        CREATE FUNCTION rb_stored_result_1(p_account text, p_key text, OUT operation_ text, OUT result_ bytea)
        STABLE LANGUAGE plpgsql AS $$
        BEGIN
            IF p_account IS NOT NULL THEN
                SELECT operation, result INTO operation_, result_ FROM idempotency WHERE account_id = p_account AND key = p_key;
            END IF;
        END $$
        """,
        """
        CREATE FUNCTION rb_store_result_1(p_account text, p_key text, p_operation text, p_result jsonb, p_now timestamptz)
        RETURNS bytea LANGUAGE plpgsql AS $$
        DECLARE
            bytes bytea := convert_to(p_result::text, 'UTF8');
        BEGIN
            IF p_account IS NOT NULL THEN
                INSERT INTO idempotency (account_id, key, operation, result, created_at) VALUES (p_account, p_key, p_operation, bytes, p_now);
            END IF;
            RETURN bytes;
        END $$
        """,
        // createRideRequest: one-ride-at-a-time under the passenger's booking lock (only that
        // check needs it: without the rule, as operator tools and `make load` run, one account's
        // bookings do not queue behind each other's commits), the first free code of p_codes
        // (each try-locked, a held one skipped), the row and its event.
        """
        CREATE FUNCTION rb_create_request_1(p_account text, p_key text, p_operation text, p_id text, p_passenger text, p_name text,
            p_pickup text, p_dropoff text, p_notes text, p_now timestamptz, p_one_at_a_time boolean, p_codes text[],
            OUT outcome_ text, OUT info_ text, OUT result_ bytea) LANGUAGE plpgsql AS $$
        DECLARE
            stored record;
            existing text;
            candidate text;
            code text;
            q ride_request;
        BEGIN
            SELECT * INTO stored FROM rb_stored_result_1(p_account, p_key);
            IF stored.operation_ IS NOT NULL THEN
                IF stored.operation_ <> p_operation THEN outcome_ := 'key-reused'; RETURN; END IF;
                outcome_ := 'replay'; result_ := stored.result_; RETURN;
            END IF;
            IF p_one_at_a_time THEN
                PERFORM pg_advisory_xact_lock(\(AdvisoryLock.passengerBooking), hashtext(p_passenger));
                existing := COALESCE(
                    (SELECT id FROM ride WHERE passenger_id = p_passenger AND state NOT IN ('completed', 'cancelled') LIMIT 1),
                    (SELECT id FROM ride_request WHERE passenger_id = p_passenger AND status = 'open' LIMIT 1));
                IF existing IS NOT NULL THEN outcome_ := 'busy'; info_ := existing; RETURN; END IF;
            END IF;
            FOREACH candidate IN ARRAY p_codes LOOP
                IF pg_try_advisory_xact_lock(\(AdvisoryLock.shortCode), hashtext(candidate)) AND NOT EXISTS (
                    SELECT 1 FROM ride_request rq LEFT JOIN ride r ON r.id = rq.ride_id
                    WHERE rq.short_code = candidate AND (rq.status = 'open' OR r.state IN ('accepted', 'arrived', 'confirmed'))) THEN
                    code := candidate;
                    EXIT;
                END IF;
            END LOOP;
            IF code IS NULL THEN outcome_ := 'no-code'; RETURN; END IF;
            INSERT INTO ride_request (id, passenger_id, passenger_name, pickup, dropoff, accessibility_notes, status, created_at, short_code)
            VALUES (p_id, p_passenger, p_name, p_pickup, p_dropoff, p_notes, 'open', p_now, code) RETURNING * INTO q;
            PERFORM rb_stage_event_1(p_id, NULL, 'state_changed', 'requested', p_passenger, p_now, NULL);
            outcome_ := 'ok';
            result_ := rb_store_result_1(p_account, p_key, p_operation, rb_request_json_1(q), p_now);
        END $$
        """,
        """
        CREATE FUNCTION rb_cancel_request_1(p_account text, p_key text, p_operation text, p_id text, p_actor text, p_reason text,
            p_now timestamptz, OUT outcome_ text, OUT info_ text, OUT result_ bytea) LANGUAGE plpgsql AS $$
        DECLARE
            stored record;
            q ride_request;
        BEGIN
            SELECT * INTO stored FROM rb_stored_result_1(p_account, p_key);
            IF stored.operation_ IS NOT NULL THEN
                IF stored.operation_ <> p_operation THEN outcome_ := 'key-reused'; RETURN; END IF;
                outcome_ := 'replay'; result_ := stored.result_; RETURN;
            END IF;
            SELECT * INTO q FROM ride_request WHERE id = p_id FOR UPDATE;
            IF NOT FOUND THEN outcome_ := 'not-found'; RETURN; END IF;
            IF q.status <> 'open' THEN
                outcome_ := 'illegal'; info_ := CASE WHEN q.status = 'accepted' THEN 'accepted' ELSE 'cancelled' END; RETURN;
            END IF;
            UPDATE ride_request SET status = 'cancelled' WHERE id = p_id;
            q.status := 'cancelled';
            PERFORM rb_stage_event_1(p_id, NULL, 'state_changed', 'cancelled', p_actor, p_now, p_reason);
            outcome_ := 'ok';
            result_ := rb_store_result_1(p_account, p_key, p_operation, rb_request_json_1(q), p_now);
        END $$
        """,
        // accept: one-ride-at-a-time under the driver's booking lock (only with the rule, as for
        // requests); the driver's own active ride for this request is the answer again, also
        // when his concurrent accept won; exactly one winner of the open request.
        """
        CREATE FUNCTION rb_accept_1(p_account text, p_key text, p_operation text, p_request text, p_driver text, p_ride text,
            p_ride_key bytea, p_one_at_a_time boolean, p_actor text, p_detail text, p_now timestamptz,
            OUT outcome_ text, OUT info_ text, OUT result_ bytea) LANGUAGE plpgsql AS $$
        DECLARE
            stored record;
            held ride;
            busy text;
            q ride_request;
            current_status text;
        BEGIN
            SELECT * INTO stored FROM rb_stored_result_1(p_account, p_key);
            IF stored.operation_ IS NOT NULL THEN
                IF stored.operation_ <> p_operation THEN outcome_ := 'key-reused'; RETURN; END IF;
                outcome_ := 'replay'; result_ := stored.result_; RETURN;
            END IF;
            IF p_one_at_a_time THEN PERFORM pg_advisory_xact_lock(\(AdvisoryLock.driverBooking), hashtext(p_driver)); END IF;
            SELECT * INTO held FROM ride WHERE request_id = p_request AND driver_id = p_driver;
            IF FOUND AND held.state NOT IN ('completed', 'cancelled') THEN
                outcome_ := 'ok';
                result_ := rb_store_result_1(p_account, p_key, p_operation, rb_ride_json_1(held), p_now);
                RETURN;
            END IF;
            IF p_one_at_a_time THEN
                SELECT id INTO busy FROM ride WHERE driver_id = p_driver AND state IN ('accepted', 'arrived') LIMIT 1;
                IF busy IS NOT NULL THEN outcome_ := 'busy'; info_ := busy; RETURN; END IF;
            END IF;
            UPDATE ride_request SET status = 'accepted', ride_id = p_ride WHERE id = p_request AND status = 'open' RETURNING * INTO q;
            IF NOT FOUND THEN
                -- The UPDATE waited for the winner's commit: this statement sees its ride, which
                -- is the answer again when it is this driver's (his own accept, racing itself).
                SELECT * INTO held FROM ride WHERE request_id = p_request AND driver_id = p_driver;
                IF FOUND AND held.state NOT IN ('completed', 'cancelled') THEN
                    outcome_ := 'ok';
                    result_ := rb_store_result_1(p_account, p_key, p_operation, rb_ride_json_1(held), p_now);
                    RETURN;
                END IF;
                SELECT status INTO current_status FROM ride_request WHERE id = p_request;
                IF NOT FOUND THEN outcome_ := 'not-found';
                ELSIF current_status = 'accepted' THEN outcome_ := 'taken';
                ELSE outcome_ := 'illegal'; info_ := 'cancelled';
                END IF;
                RETURN;
            END IF;
            INSERT INTO ride (id, request_id, passenger_id, driver_id, state, key, created_at, state_changed_at, short_code)
            VALUES (p_ride, p_request, q.passenger_id, p_driver, 'accepted', p_ride_key, p_now, p_now, q.short_code) RETURNING * INTO held;
            PERFORM rb_stage_event_1(p_request, p_ride, 'state_changed', 'accepted', p_actor, p_now, p_detail);
            outcome_ := 'ok';
            result_ := rb_store_result_1(p_account, p_key, p_operation, rb_ride_json_1(held), p_now);
        END $$
        """,
        // arrive, confirm (the ride word), complete, cancel: moves only from an allowed state;
        // the UPDATE's row lock holds the check until commit.
        """
        CREATE FUNCTION rb_move_ride_1(p_account text, p_key text, p_operation text, p_ride text, p_state text, p_from text[],
            p_actor text, p_detail text, p_now timestamptz, OUT outcome_ text, OUT info_ text, OUT result_ bytea) LANGUAGE plpgsql AS $$
        DECLARE
            stored record;
            moved ride;
        BEGIN
            SELECT * INTO stored FROM rb_stored_result_1(p_account, p_key);
            IF stored.operation_ IS NOT NULL THEN
                IF stored.operation_ <> p_operation THEN outcome_ := 'key-reused'; RETURN; END IF;
                outcome_ := 'replay'; result_ := stored.result_; RETURN;
            END IF;
            UPDATE ride SET state = p_state, state_changed_at = p_now WHERE id = p_ride AND state = ANY(p_from) RETURNING * INTO moved;
            IF NOT FOUND THEN
                SELECT state INTO info_ FROM ride WHERE id = p_ride;
                outcome_ := CASE WHEN FOUND THEN 'illegal' ELSE 'not-found' END;
                RETURN;
            END IF;
            PERFORM rb_stage_event_1(moved.request_id, p_ride, 'state_changed', p_state, p_actor, moved.state_changed_at, p_detail);
            outcome_ := 'ok';
            result_ := rb_store_result_1(p_account, p_key, p_operation, rb_ride_json_1(moved), p_now);
        END $$
        """,
        // A touch proof: the ride's row lock serialises its proofs; p_mode 'mutual' looks for
        // the counterpart's simultaneous proof, 'confirm' / 'none' is the passenger policy's
        // answer for this side (decided by the caller).
        """
        CREATE FUNCTION rb_touch_proof_1(p_account text, p_key text, p_operation text, p_ride text, p_side text, p_prover text,
            p_slot bigint, p_uuid text, p_major bigint, p_minor bigint, p_rssi double precision, p_samples bigint,
            p_observed_at timestamptz, p_received_at timestamptz, p_observed_from timestamptz, p_observed_until timestamptz,
            p_mode text, p_counterpart text, p_earliest timestamptz, p_latest timestamptz, p_from_bound timestamptz, p_until_bound timestamptz,
            p_observed_detail text, p_confirmed_detail text, p_now timestamptz,
            OUT outcome_ text, OUT info_ text, OUT result_ bytea) LANGUAGE plpgsql AS $$
        DECLARE
            stored record;
            r ride;
            inserted bigint;
            proofs bigint := 0;
            simultaneous bigint := 0;
            confirms boolean;
            answer jsonb;
        BEGIN
            SELECT * INTO stored FROM rb_stored_result_1(p_account, p_key);
            IF stored.operation_ IS NOT NULL THEN
                IF stored.operation_ <> p_operation THEN outcome_ := 'key-reused'; RETURN; END IF;
                outcome_ := 'replay'; result_ := stored.result_; RETURN;
            END IF;
            SELECT * INTO r FROM ride WHERE id = p_ride FOR UPDATE;
            IF NOT FOUND THEN outcome_ := 'not-found'; RETURN; END IF;
            IF r.state <> 'arrived' THEN outcome_ := 'illegal'; info_ := r.state; RETURN; END IF;
            INSERT INTO touch_proof (ride_id, side, account_id, slot, uuid, major, minor, peak_rssi_dbm, samples, observed_at, received_at,
                                     observed_from, observed_until)
            VALUES (p_ride, p_side, p_prover, p_slot, p_uuid, p_major, p_minor, p_rssi, p_samples, p_observed_at, p_received_at,
                    p_observed_from, p_observed_until)
            ON CONFLICT DO NOTHING RETURNING id INTO inserted;
            IF inserted IS NULL THEN outcome_ := 'proof-replayed'; RETURN; END IF;
            IF p_mode = 'mutual' THEN
                SELECT COUNT(*), COUNT(*) FILTER (WHERE observed_from <= p_from_bound AND observed_until >= p_until_bound)
                INTO proofs, simultaneous
                FROM touch_proof WHERE ride_id = p_ride AND side = p_counterpart AND received_at BETWEEN p_earliest AND p_latest;
                confirms := simultaneous > 0;
            ELSE
                confirms := p_mode = 'confirm';
            END IF;
            IF confirms THEN
                UPDATE ride SET state = 'confirmed', state_changed_at = p_now WHERE id = p_ride RETURNING * INTO r;
                PERFORM rb_stage_event_1(r.request_id, p_ride, 'state_changed', 'confirmed', p_prover, p_now, p_confirmed_detail);
                answer := jsonb_build_object('ride', rb_ride_json_1(r), 'confirmed', true);
            ELSE
                IF p_mode = 'mutual' THEN
                    PERFORM rb_stage_event_1(r.request_id, p_ride, 'touch_observed', 'arrived', p_prover, p_now, p_observed_detail);
                END IF;
                answer := jsonb_build_object('ride', rb_ride_json_1(r), 'confirmed', false);
                IF proofs > 0 THEN answer := answer || jsonb_build_object('notSimultaneous', true); END IF;
            END IF;
            outcome_ := 'ok';
            result_ := rb_store_result_1(p_account, p_key, p_operation, answer, p_now);
        END $$
        """,
        // The locator request: arrived rides only, at most one per p_min_interval seconds
        // (a staged request counts); info_ is the request's id, at_ the last request's time.
        """
        CREATE FUNCTION rb_request_locator_1(p_ride text, p_actor text, p_at timestamptz, p_min_interval double precision,
            OUT outcome_ text, OUT info_ text, OUT at_ timestamptz) LANGUAGE plpgsql AS $$
        DECLARE
            r ride;
            latest timestamptz;
        BEGIN
            SELECT * INTO r FROM ride WHERE id = p_ride FOR UPDATE;
            IF NOT FOUND THEN outcome_ := 'not-found'; RETURN; END IF;
            IF r.state <> 'arrived' THEN outcome_ := 'illegal'; info_ := r.state; RETURN; END IF;
            SELECT MAX(at) INTO latest FROM (SELECT at FROM ride_event WHERE ride_id = p_ride AND kind = 'locator_requested'
                UNION ALL SELECT at FROM ride_event_pending WHERE ride_id = p_ride AND kind = 'locator_requested') AS requests;
            IF latest IS NOT NULL AND extract(epoch FROM p_at - latest) < p_min_interval THEN
                outcome_ := 'too-soon'; at_ := latest; RETURN;
            END IF;
            PERFORM rb_stage_event_1(r.request_id, p_ride, 'locator_requested', r.state, p_actor, p_at, NULL);
            outcome_ := 'ok'; info_ := r.request_id;
        END $$
        """,
        // The sequencing run (EventSequencing) as one statement: its own statements take their
        // snapshots after the lock, so it moves everything committed before it.
        """
        CREATE FUNCTION rb_sequence_events_1(p_channel text) RETURNS void LANGUAGE plpgsql AS $$
        DECLARE
            newest bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(AdvisoryLock.eventSequencing));
            WITH moved AS (DELETE FROM ride_event_pending RETURNING *),
            appended AS (
                INSERT INTO ride_event (request_id, ride_id, sequence, kind, state, actor_id, at, detail)
                SELECT request_id, ride_id, sequence, kind, state, actor_id, at, detail FROM moved ORDER BY pending_id
                RETURNING id)
            SELECT MAX(id) INTO newest FROM appended;
            IF newest IS NOT NULL THEN PERFORM pg_notify(p_channel, newest::text); END IF;
        END $$
        """,
    ]
}
