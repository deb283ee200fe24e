/// Issue 36, finding 10: the resend check of a touch proof in the transaction that records it.
/// The server read the ride's accepted proofs, then recorded in another transaction, so copies
/// of one proof with their times shifted by a few milliseconds, sent at once, all passed the
/// check (8 of 10). `rb_touch_proof_7` is `rb_touch_proof_1`'s steps (TransitionFunctions) with
/// the check after the ride's row lock, which every proof of the ride takes, and a COMMIT before
/// it answers (as the `_2` procedures do): an accepted proof of the same side and slot whose
/// observation ends at or after `p_resent_since` (`VerifiedTouchProof.resentSince`) makes this
/// one 'proof-replayed', and nothing is written. Installed by the migration
/// `touch-proof-resend-check`; the `_2` procedure stays for servers of the previous version.
/// Its text is shipped: the server now calls `rb_touch_proof_9`, made from it with the step that
/// sequences the event in the same transaction (SelfSequencingTransitions).
enum TouchProofResend {
    static let v7: [String] = [
        """
        CREATE PROCEDURE rb_touch_proof_7(p_account text, p_key text, p_operation text, p_ride text, p_side text, p_prover text,
            p_slot bigint, p_uuid text, p_major bigint, p_minor bigint, p_rssi double precision, p_samples bigint,
            p_observed_at timestamptz, p_received_at timestamptz, p_observed_from timestamptz, p_observed_until timestamptz,
            p_mode text, p_counterpart text, p_earliest timestamptz, p_latest timestamptz, p_from_bound timestamptz, p_until_bound timestamptz,
            p_observed_detail text, p_confirmed_detail text, p_now timestamptz, p_resent_since timestamptz,
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
            IF EXISTS (SELECT 1 FROM touch_proof WHERE ride_id = p_ride AND side = p_side AND slot = p_slot
                       AND observed_until >= p_resent_since) THEN
                outcome_ := 'proof-resent'; RETURN;
            END IF;
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
            COMMIT;
        END $$
        """,
    ]
}
