/// Issue 35: each party's latest position during a ride's approach (`ride_position`, one row
/// per ride and party; see the SQLite migration `ride-positions`). The ride's end deletes them
/// in the transaction that ends it: a trigger on `ride.state` runs inside every transition
/// (the procedures' UPDATE of the ride row), whichever server or procedure version made it.
enum RidePositionsSchema {
    static let v1: [String] = [
        """
        CREATE TABLE ride_position (
            ride_id text NOT NULL REFERENCES ride(id) ON DELETE CASCADE,
            party text NOT NULL CHECK (party IN ('passenger', 'driver')),
            latitude double precision NOT NULL,
            longitude double precision NOT NULL,
            accuracy_meters double precision NOT NULL,
            course_degrees double precision,
            recorded_at timestamptz NOT NULL,
            received_at timestamptz NOT NULL,
            PRIMARY KEY (ride_id, party))
        """,
        """
        CREATE FUNCTION rb_forget_ride_positions_1() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM ride_position WHERE ride_id = NEW.id;
            RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER ride_position_forgotten_at_end AFTER UPDATE OF state ON ride FOR EACH ROW
        WHEN (NEW.state IN ('confirmed', 'cancelled', 'completed')) EXECUTE FUNCTION rb_forget_ride_positions_1()
        """,
    ]
}
