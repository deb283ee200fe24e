/// Issue 36, finding 4: a passenger or driver could post events to their own ride without limit
/// (595 a second on SQLite, 166 on PostgreSQL), and every reader of the history paid. A ride
/// note now carries its limits (`RideNote.perRideLimit`, `unchangedAmong`,
/// `answersOnePerRequest`), checked under the ride's row lock with the rest: `rb_record_note_7`
/// is `rb_record_note_5`'s steps (TransitionProcedures.v5) with those checks after the state's,
/// counting staged events as the earlier checks do. New answers: 'limit-reached' and
/// 'unchanged'; the answers-per-request check answers 'nothing-to-answer', as having no request
/// does. Installed by the migration `bounded-ride-notes`, with the index (ride_id, kind, id)
/// that the counts, the newest-of-a-kind check and `latestEvent` read by; `_5` stays for
/// servers of the previous version.
enum BoundedRideNotes {
    static let v7: [String] = [
        "CREATE INDEX ride_event_ride_kind ON ride_event (ride_id, kind, id)",
        """
        CREATE PROCEDURE rb_record_note_7(p_account text, p_key text, p_operation text, p_ride text, p_kind text, p_states text[],
            p_earlier text, p_actor text, p_at timestamptz, p_detail text, p_now timestamptz, p_channel text,
            p_limit bigint, p_unchanged text[], p_one_per_request boolean,
            OUT outcome_ text, OUT info_ text, OUT at_ timestamptz, OUT id_ bigint, OUT request_ text, OUT ride_ text,
            OUT sequence_ integer, OUT kind_ text, OUT state_ text, OUT actor_ text, OUT event_at_ timestamptz, OUT detail_ text)
        LANGUAGE plpgsql AS $$
        DECLARE
            r ride;
            stored record;
            answer jsonb;
            newest text;
            answers bigint;
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
                answers := (SELECT COUNT(*) FROM ride_event WHERE ride_id = p_ride AND kind = p_kind)
                    + (SELECT COUNT(*) FROM ride_event_pending WHERE ride_id = p_ride AND kind = p_kind);
                IF p_limit IS NOT NULL AND answers >= p_limit THEN outcome_ := 'limit-reached'; RETURN; END IF;
                IF cardinality(p_unchanged) > 0 THEN
                    -- Staged events are newer than every sequenced one of the ride (the row lock
                    -- orders its writes; sequencing moves them in that order).
                    SELECT kind INTO newest FROM (
                        SELECT kind, 1 AS staged, pending_id AS position FROM ride_event_pending
                        WHERE ride_id = p_ride AND kind = ANY(p_unchanged)
                        UNION ALL SELECT kind, 0, id FROM ride_event WHERE ride_id = p_ride AND kind = ANY(p_unchanged)) AS moves
                    ORDER BY staged DESC, position DESC LIMIT 1;
                    IF newest = p_kind THEN outcome_ := 'unchanged'; RETURN; END IF;
                END IF;
                IF p_one_per_request AND p_earlier IS NOT NULL AND answers >=
                    (SELECT COUNT(*) FROM ride_event WHERE ride_id = p_ride AND kind = p_earlier)
                    + (SELECT COUNT(*) FROM ride_event_pending WHERE ride_id = p_ride AND kind = p_earlier) THEN
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
}
