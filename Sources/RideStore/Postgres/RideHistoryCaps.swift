/// Issue 36 (4)'s rest: the two events a client can still post to its own ride without a
/// per-ride cap, locator requests and touch proofs (each a `touch_observed` event), capped on
/// PostgreSQL by triggers, so every procedure that writes them (`rb_request_locator_1` under
/// `_4`, `rb_touch_proof_7`) is bounded without copying its body into a new version. Each
/// procedure holds the ride's row lock when it writes, so the count cannot race. A refusal is
/// SQLSTATE class RB, which `PostgresStore` turns into `StoreError.limitReached` with the
/// trigger's sentence, the same one SQLite's write throws (`RideHistoryLimits`).
///
/// The caps are written into this migration's text: changing `RideHistoryLimits` needs a new
/// migration that replaces the functions.
enum RideHistoryCaps {
    static let v1: [String] = [
        """
        CREATE FUNCTION rb_cap_locator_requests_1() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF (SELECT count(*) FROM ride_event WHERE ride_id = NEW.ride_id AND kind = 'locator_requested')
               + (SELECT count(*) FROM ride_event_pending WHERE ride_id = NEW.ride_id AND kind = 'locator_requested')
               >= \(RideHistoryLimits.locatorRequestsPerRide) THEN
                RAISE EXCEPTION USING ERRCODE = 'RB001', MESSAGE = 'this ride already has \(RideHistoryLimits.locatorRequestsPerRide) locator requests; it takes no more';
            END IF;
            RETURN NEW;
        END $$
        """,
        """
        CREATE TRIGGER rb_cap_locator_requests BEFORE INSERT ON ride_event_pending
            FOR EACH ROW WHEN (NEW.kind = 'locator_requested') EXECUTE FUNCTION rb_cap_locator_requests_1()
        """,
        """
        CREATE FUNCTION rb_cap_touch_proofs_1() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF (SELECT count(*) FROM touch_proof WHERE ride_id = NEW.ride_id) >= \(RideHistoryLimits.touchProofsPerRide) THEN
                RAISE EXCEPTION USING ERRCODE = 'RB002', MESSAGE = 'this ride already has \(RideHistoryLimits.touchProofsPerRide) touch proofs; it takes no more';
            END IF;
            RETURN NEW;
        END $$
        """,
        """
        CREATE TRIGGER rb_cap_touch_proofs BEFORE INSERT ON touch_proof
            FOR EACH ROW EXECUTE FUNCTION rb_cap_touch_proofs_1()
        """,
    ]
}
