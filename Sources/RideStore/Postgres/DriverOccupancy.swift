/// Issue 37 (9): a driver with a passenger on board (a confirmed ride not yet completed) is not
/// free. `rb_accept_1` counted only accepted and arrived rides as busy, so a dispatcher could
/// assign him a second passenger. Migration `driver-busy-while-confirmed` adds `rb_accept_6`, a
/// procedure that takes the driver's booking lock, refuses him while a ride of his for another
/// request occupies him (`RideState.occupiesDriver`), and otherwise runs `rb_accept_1` unchanged
/// (its keyed replay, its own-ride answer, its race arbiter) and commits before it answers, as
/// the `_2` procedures do. A keyed replay is left to `rb_accept_1`, so a retried accept still
/// gets its first answer. The booking lock is transaction-scoped and re-entrant, so
/// `rb_accept_1` taking it again in the same transaction does not wait.
enum DriverOccupancy {
    static let v6: [String] = [
        """
        CREATE PROCEDURE rb_accept_6(p_account text, p_key text, p_operation text, p_request text, p_driver text, p_ride text,
            p_ride_key bytea, p_one_at_a_time boolean, p_actor text, p_detail text, p_now timestamptz,
            OUT outcome_ text, OUT info_ text, OUT result_ bytea) LANGUAGE plpgsql AS $$
        DECLARE
            stored record;
            busy text;
        BEGIN
            SELECT * INTO stored FROM rb_stored_result_1(p_account, p_key);
            IF p_one_at_a_time AND stored.operation_ IS NULL THEN
                PERFORM pg_advisory_xact_lock(\(AdvisoryLock.driverBooking), hashtext(p_driver));
                SELECT id INTO busy FROM ride WHERE driver_id = p_driver AND request_id <> p_request
                    AND state IN (\(RideState.driverOccupyingSQLList)) LIMIT 1;
                IF busy IS NOT NULL THEN
                    outcome_ := 'busy'; info_ := busy;
                    COMMIT;
                    RETURN;
                END IF;
            END IF;
            SELECT * INTO outcome_, info_, result_ FROM rb_accept_1(p_account, p_key, p_operation, p_request, p_driver, p_ride,
                p_ride_key, p_one_at_a_time, p_actor, p_detail, p_now);
            COMMIT;
        END $$
        """,
    ]

    /// `CALL rb_accept_6($1, …, $11, NULL, NULL, NULL)`.
    static let acceptCall = "CALL rb_accept_6(" + ((1...11).map { "$\($0)" } + ["NULL", "NULL", "NULL"]).joined(separator: ", ") + ")"
}
