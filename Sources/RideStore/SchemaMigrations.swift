/// The one shape both stores' schemas follow (GRDB's `DatabaseMigrator`): named migrations,
/// registered once in order, each applied once and recorded by name in the database. A
/// database that records a name this binary does not know was migrated by a newer binary,
/// and is refused rather than used with a schema this code does not understand.
struct SchemaMigrations<Step> {
    private(set) var migrations: [(name: String, step: Step)] = []

    /// Appends a migration. Never edit or reorder a shipped one; add another.
    mutating func register(_ name: String, _ step: Step) {
        precondition(!migrations.contains { $0.name == name }, "migration \(name) registered twice")
        migrations.append((name, step))
    }

    var names: [String] { migrations.map(\.name) }

    /// The migrations still to apply, in order, given those the database records; throws
    /// `SchemaTooNew` when it records any this binary does not know.
    func pending(applied: some Sequence<String>, database: String) throws -> [(name: String, step: Step)] {
        let applied = Set(applied)
        let unknown = applied.subtracting(names)
        guard unknown.isEmpty else { throw SchemaTooNew(database: database, unknownMigrations: unknown.sorted()) }
        return migrations.filter { !applied.contains($0.name) }
    }
}

/// The database was migrated by a newer ridebeacon: its schema has migrations this binary does
/// not know, so reading or writing it could lose or corrupt data. Upgrade ridebeacon (or point
/// it at another database); nothing was changed.
public struct SchemaTooNew: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which database ("sqlite:PATH", or the PostgreSQL database's name).
    public var database: String
    /// The migrations the database records and this binary does not know.
    public var unknownMigrations: [String]

    public var description: String {
        "\(database): the schema is newer than this ridebeacon knows (migrations \(unknownMigrations.joined(separator: ", ")));"
            + " upgrade ridebeacon to use this database"
    }
}

extension SchemaMigrations: Sendable where Step: Sendable {}
