/// Issue 39: the transitions of every ride (request; accept; arrive, confirm, complete, cancel)
/// as one PL/pgSQL body each, without the nested calls their procedures made. Installed by the
/// migration `folded-transitions` (a no-op step of that name on SQLite).
///
/// `rb_move_ride_2` called `rb_move_ride_1`, which called `rb_stored_result_1`,
/// `rb_stage_event_1`, `rb_ride_json_1` and `rb_store_result_1`; `rb_create_request_2` called
/// `rb_create_request_1`, which called the same with `rb_request_json_1`; `rb_accept_6` called
/// `rb_stored_result_1`, then `rb_accept_1`, which looked the key up again and took the driver's
/// booking lock again. Each PL/pgSQL call sets up its own memory contexts and executor state,
/// which is where PostgreSQL's samples were (BENCHMARKS.md, "Issue 39: PostgreSQL's work per
/// transition"); a prototype of the move written as one body cost about 12 % less of
/// PostgreSQL's CPU per call. `rb_move_ride_8`, `rb_create_request_8` and `rb_accept_8` are
/// those bodies with the callees' statements written in, in the same order, under the same
/// locks, committing before they answer as the `_2` and `_6` procedures do:
///
/// - the key's stored answer read once (`rb_stored_result_1`'s SELECT): 'replay' with it, or
///   'key-reused' when it was another operation's, and nothing written;
/// - the event staged by `rb_stage_event_1`'s INSERT, with the same per-request sequence;
/// - the answer built by `rb_ride_json_1`'s or `rb_request_json_1`'s expression
///   (`rb_json_time_1` written out as the epoch's offset from 2001), stored under the key by
///   `rb_store_result_1`'s INSERT, whose primary key still settles two first attempts racing
///   (23505; the loser is asked again);
/// - accept's busy check (`rb_accept_6`'s, over every state that occupies a driver) once:
///   `rb_accept_1`'s second one (accepted or arrived rides, after its own-ride answer) looked
///   for a subset of the same rows under the same lock, and its own-ride answer is for this
///   request, which the first check leaves out, so it could refuse nothing the first let by.
///   (Only an accept without the one-at-a-time rule takes no lock; it could commit between the
///   two checks as it can commit just after the one.)
///
/// The `_1`, `_2` and `_6` routines stay: a server of the previous version calls them beside
/// this one. The server now calls the `_9` versions of these bodies (SelfSequencingTransitions).
enum FoldedTransitions {
    /// Migration `folded-transitions`: the server sequences each transition's staged event.
    static let v8 = procedures(.byTheServer)

    /// The three procedures of one version (`v8`, or `v9`: SelfSequencingTransitions).
    static func procedures(_ sequencing: Sequencing) -> [String] {
        let (version, channel, sequenced, beforeCommit) = (sequencing.version, sequencing.channelArgument, sequencing.sequencedResult,
                                                           sequencing.beforeCommit)
        return [
        """
        CREATE PROCEDURE rb_move_ride_\(version)(p_account text, p_key text, p_operation text, p_ride text, p_state text, p_from text[],
            p_actor text, p_detail text, p_now timestamptz\(channel), OUT outcome_ text, OUT info_ text, OUT result_ bytea\(sequenced)) LANGUAGE plpgsql AS $$
        DECLARE
            stored_operation text;
            moved ride;
        BEGIN
            <<transition>>
            BEGIN
                \(storedAnswer)
                UPDATE ride SET state = p_state, state_changed_at = p_now WHERE id = p_ride AND state = ANY(p_from) RETURNING * INTO moved;
                IF NOT FOUND THEN
                    SELECT state INTO info_ FROM ride WHERE id = p_ride;
                    outcome_ := CASE WHEN FOUND THEN 'illegal' ELSE 'not-found' END;
                    EXIT transition;
                END IF;
                \(stageEvent(request: "moved.request_id", ride: "p_ride", state: "p_state", actor: "p_actor", at: "moved.state_changed_at",
                             detail: "p_detail"))
                outcome_ := 'ok';
                \(storeAnswer(rideJSON("moved")))
            END;
            \(beforeCommit)COMMIT;
        END $$
        """,
        // rb_create_request_1's steps: one ride at a time under the passenger's booking lock,
        // the first free code of p_codes (each try-locked, a held one skipped), the row, its event.
        """
        CREATE PROCEDURE rb_create_request_\(version)(p_account text, p_key text, p_operation text, p_id text, p_passenger text, p_name text,
            p_pickup text, p_dropoff text, p_notes text, p_now timestamptz, p_one_at_a_time boolean, p_codes text[]\(channel),
            OUT outcome_ text, OUT info_ text, OUT result_ bytea\(sequenced)) LANGUAGE plpgsql AS $$
        DECLARE
            stored_operation text;
            existing text;
            candidate text;
            code text;
            q ride_request;
        BEGIN
            <<transition>>
            BEGIN
                \(storedAnswer)
                IF p_one_at_a_time THEN
                    PERFORM pg_advisory_xact_lock(\(AdvisoryLock.passengerBooking), hashtext(p_passenger));
                    existing := COALESCE(
                        (SELECT id FROM ride WHERE passenger_id = p_passenger AND state NOT IN ('completed', 'cancelled') LIMIT 1),
                        (SELECT id FROM ride_request WHERE passenger_id = p_passenger AND status = 'open' LIMIT 1));
                    IF existing IS NOT NULL THEN outcome_ := 'busy'; info_ := existing; EXIT transition; END IF;
                END IF;
                FOREACH candidate IN ARRAY p_codes LOOP
                    IF pg_try_advisory_xact_lock(\(AdvisoryLock.shortCode), hashtext(candidate)) AND NOT EXISTS (
                        SELECT 1 FROM ride_request rq LEFT JOIN ride r ON r.id = rq.ride_id
                        WHERE rq.short_code = candidate AND (rq.status = 'open' OR r.state IN ('accepted', 'arrived', 'confirmed'))) THEN
                        code := candidate;
                        EXIT;
                    END IF;
                END LOOP;
                IF code IS NULL THEN outcome_ := 'no-code'; EXIT transition; END IF;
                INSERT INTO ride_request (id, passenger_id, passenger_name, pickup, dropoff, accessibility_notes, status, created_at, short_code)
                VALUES (p_id, p_passenger, p_name, p_pickup, p_dropoff, p_notes, 'open', p_now, code) RETURNING * INTO q;
                \(stageEvent(request: "p_id", ride: "NULL", state: "'requested'", actor: "p_passenger", at: "p_now", detail: "NULL"))
                outcome_ := 'ok';
                \(storeAnswer(requestJSON("q")))
            END;
            \(beforeCommit)COMMIT;
        END $$
        """,
        """
        CREATE PROCEDURE rb_accept_\(version)(p_account text, p_key text, p_operation text, p_request text, p_driver text, p_ride text,
            p_ride_key bytea, p_one_at_a_time boolean, p_actor text, p_detail text, p_now timestamptz\(channel),
            OUT outcome_ text, OUT info_ text, OUT result_ bytea\(sequenced)) LANGUAGE plpgsql AS $$
        DECLARE
            stored_operation text;
            held ride;
            busy text;
            q ride_request;
            current_status text;
        BEGIN
            <<transition>>
            BEGIN
                \(storedAnswer)
                IF p_one_at_a_time THEN
                    PERFORM pg_advisory_xact_lock(\(AdvisoryLock.driverBooking), hashtext(p_driver));
                    SELECT id INTO busy FROM ride WHERE driver_id = p_driver AND request_id <> p_request
                        AND state IN (\(RideState.driverOccupyingSQLList)) LIMIT 1;
                    IF busy IS NOT NULL THEN outcome_ := 'busy'; info_ := busy; EXIT transition; END IF;
                END IF;
                SELECT * INTO held FROM ride WHERE request_id = p_request AND driver_id = p_driver;
                IF FOUND AND held.state NOT IN ('completed', 'cancelled') THEN
                    outcome_ := 'ok';
                    \(storeAnswer(rideJSON("held")))
                    EXIT transition;
                END IF;
                UPDATE ride_request SET status = 'accepted', ride_id = p_ride WHERE id = p_request AND status = 'open' RETURNING * INTO q;
                IF NOT FOUND THEN
                    -- The UPDATE waited for the winner's commit: this statement sees its ride, which
                    -- is the answer again when it is this driver's (his own accept, racing itself).
                    SELECT * INTO held FROM ride WHERE request_id = p_request AND driver_id = p_driver;
                    IF FOUND AND held.state NOT IN ('completed', 'cancelled') THEN
                        outcome_ := 'ok';
                        \(storeAnswer(rideJSON("held")))
                        EXIT transition;
                    END IF;
                    SELECT status INTO current_status FROM ride_request WHERE id = p_request;
                    IF NOT FOUND THEN outcome_ := 'not-found';
                    ELSIF current_status = 'accepted' THEN outcome_ := 'taken';
                    ELSE outcome_ := 'illegal'; info_ := 'cancelled';
                    END IF;
                    EXIT transition;
                END IF;
                INSERT INTO ride (id, request_id, passenger_id, driver_id, state, key, created_at, state_changed_at, short_code)
                VALUES (p_ride, p_request, q.passenger_id, p_driver, 'accepted', p_ride_key, p_now, p_now, q.short_code) RETURNING * INTO held;
                \(stageEvent(request: "p_request", ride: "p_ride", state: "'accepted'", actor: "p_actor", at: "p_now", detail: "p_detail"))
                outcome_ := 'ok';
                \(storeAnswer(rideJSON("held")))
            END;
            \(beforeCommit)COMMIT;
        END $$
        """,
        ]
    }

    /// `rb_stored_result_1` and the `_1` functions' use of it: with a key, its stored answer
    /// ends the transition ('replay', or 'key-reused' without a result). Without a row the
    /// SELECT leaves `result_` NULL, as the CALL passed it.
    private static let storedAnswer = """
        IF p_account IS NOT NULL THEN
                    SELECT operation, result INTO stored_operation, result_ FROM idempotency WHERE account_id = p_account AND key = p_key;
                    IF stored_operation IS NOT NULL THEN
                        IF stored_operation <> p_operation THEN outcome_ := 'key-reused'; result_ := NULL; ELSE outcome_ := 'replay'; END IF;
                        EXIT transition;
                    END IF;
                END IF;
        """

    /// `rb_stage_event_1`'s INSERT: the request's next sequence over its sequenced and staged
    /// events (the caller holds the ride's or the request's row lock).
    private static func stageEvent(request: String, ride: String, state: String, actor: String, at: String, detail: String) -> String {
        """
        INSERT INTO ride_event_pending (request_id, ride_id, sequence, kind, state, actor_id, at, detail)
                SELECT \(request), \(ride), COALESCE(MAX(sequence), 0) + 1, 'state_changed', \(state), \(actor), \(at), \(detail) FROM (
                    SELECT sequence FROM ride_event WHERE request_id = \(request)
                    UNION ALL SELECT sequence FROM ride_event_pending WHERE request_id = \(request)) AS known;
        """
    }

    /// `rb_store_result_1`: the answer's bytes, stored under the key when there is one.
    private static func storeAnswer(_ json: String) -> String {
        """
        result_ := convert_to((\(json))::text, 'UTF8');
                IF p_account IS NOT NULL THEN
                    INSERT INTO idempotency (account_id, key, operation, result, created_at) VALUES (p_account, p_key, p_operation, result_, p_now);
                END IF;
        """
    }

    /// `rb_ride_json_1(r)`'s expression for the ride variable `r`, with `rb_json_time_1` (seconds
    /// since 2001, as `JSONEncoder` writes a Date) written out.
    private static func rideJSON(_ r: String) -> String {
        func time(_ column: String) -> String { "extract(epoch FROM \(r).\(column)) - 978307200" }
        return """
            jsonb_strip_nulls(jsonb_build_object('id', \(r).id, 'requestID', \(r).request_id, 'passengerID', \(r).passenger_id,
                'driverID', \(r).driver_id, 'state', \(r).state, 'key', translate(encode(\(r).key, 'base64'), E'\\n', ''),
                'createdAt', \(time("created_at")), 'stateChangedAt', \(time("state_changed_at")),
                'shortCode', \(r).short_code, 'etaMinutes', \(r).eta_minutes, 'etaGivenAt', \(time("eta_given_at"))))
            """
    }

    /// `rb_request_json_1(q)`'s expression for the request variable `q`.
    private static func requestJSON(_ q: String) -> String {
        """
        jsonb_strip_nulls(jsonb_build_object('id', \(q).id, 'passengerID', \(q).passenger_id, 'passengerName', \(q).passenger_name,
                'pickup', \(q).pickup, 'dropoff', \(q).dropoff, 'accessibilityNotes', \(q).accessibility_notes, 'status', \(q).status,
                'createdAt', extract(epoch FROM \(q).created_at) - 978307200, 'rideID', \(q).ride_id, 'shortCode', \(q).short_code))
        """
    }
}
