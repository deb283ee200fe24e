/// PostgreSQL advisory lock keys, kept in one place so no two uses collide. The booking locks
/// are two-key locks (`pg_advisory_xact_lock(key, hashtext(id))`): one passenger's, driver's or
/// code's writers wait for each other, everyone else's go on. The one definition of each key:
/// every migration's SQL interpolates it (TransitionFunctions, DriverOccupancy). Applied
/// migrations are frozen, so changing a key needs new functions in a new migration, and
/// SchemaMigrationTests fails if a shipped migration's text would change.
enum AdvisoryLock {
    /// Schema migrations, one server at a time.
    static let migration = 726172
    /// Moving staged events into the history in id order (`sequenceEvents`).
    static let eventSequencing = 726173
    /// One passenger's bookings (the one-ride-at-a-time check).
    static let passengerBooking: Int32 = 726174
    /// One driver's accepts (the one-ride-at-a-time check).
    static let driverBooking: Int32 = 726175
    /// One short ride code while it is checked and taken.
    static let shortCode: Int32 = 726176
    /// One issuer's sign-in codes while their daily count is checked.
    static let signInIssuer: Int32 = 726177
}
