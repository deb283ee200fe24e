import Foundation
import GRDB
import RideBeaconTesting
import Testing
@testable import RideStore

/// Issue 25: a driver's car as colour, make, model and plate. Accounts made before (one free
/// text) are split by both stores' v9-vehicle-parts migration exactly as `Vehicle(parsing:)`
/// splits text (SQLite runs it, PostgreSQL restates it as regular expressions); text that
/// cannot be split keeps its words and gets no parts.
@Suite("Vehicle parts migration")
struct VehicleMigrationTests {
    /// Today's texts, the tricky ones included.
    static let texts = [
        "blue Toyota Prius", "Toyota Prius", "blue Prius", "Prius", "white", "silver Ford Transit Connect",
        "BLUE Tesla Model 3", "Grey  VW\tGolf", "  red Fiat 500  ", "Škoda Octavia", "red car, big",
        "my sister's old red van with a dent", "Ford (rental)", "gold Mercedes-Benz E-Class",
    ]

    @Test func theSplitIsBestEffortAndKeepsWhatItCannotSplit() {
        #expect(Vehicle(parsing: "blue Toyota Prius") == Vehicle(colour: "blue", make: "Toyota", model: "Prius"))
        #expect(Vehicle(parsing: "Toyota Prius") == Vehicle(make: "Toyota", model: "Prius"))
        #expect(Vehicle(parsing: "blue Prius") == Vehicle(colour: "blue", model: "Prius"))
        #expect(Vehicle(parsing: "silver Ford Transit Connect") == Vehicle(colour: "silver", make: "Ford", model: "Transit Connect"))
        #expect(Vehicle(parsing: "Grey  VW\tGolf") == Vehicle(colour: "Grey", make: "VW", model: "Golf"))
        for unsplittable in ["Prius", "white", "red car, big", "my sister's old red van with a dent", "Ford (rental)", ""] {
            #expect(Vehicle(parsing: unsplittable) == nil, "\(unsplittable)")
        }
    }

    @Test func aVehicleIsSpokenWithItsPlateLetterByLetter() {
        let car = Vehicle(colour: "blue", make: "Toyota", model: "Prius", plate: "ab12 cde")
        #expect(car.plate == "AB12 CDE")
        #expect(car.spoken == "blue Toyota Prius, plate A B 1 2 C D E")
        #expect(car.written == "blue Toyota Prius, plate AB12 CDE")
        #expect(RideParty(name: "Ben", vehicle: car.summary, vehicleDetails: car).writtenVehicle == car.written)
        #expect(RideParty(name: "Ben", vehicle: "Prius").writtenVehicle == "Prius")
        #expect(Vehicle.isValidPlate("AB12 CDE") && Vehicle.isValidPlate("K-9") && !Vehicle.isValidPlate(" AB") && !Vehicle.isValidPlate("AB12 CDE 45678"))
    }

    @Test(arguments: StoreKind.available)
    func accountsMadeBeforeAreSplitOnUpgrade(kind: StoreKind) async throws {
        let location = try await kind.makeDatabase(prefix: "rb_vehicle")
        let ids = Self.texts.indices.map { "d\($0)" }
        switch kind {
        case .sqlite:
            let path = String(location.dropFirst("sqlite:".count))
            let pool = try DatabasePool(path: path)
            try SQLiteMigrations.migrator.migrate(pool, upTo: "v8-locator")
            try await pool.write { db in
                for (id, text) in zip(ids, Self.texts) {
                    try db.execute(sql: "INSERT INTO account (id, role, displayName, vehicle, createdAt) VALUES (?, 'driver', 'Ben', ?, 1)",
                                   arguments: [id, text])
                }
                try db.execute(sql: "INSERT INTO account (id, role, displayName, vehicle, createdAt) VALUES ('p', 'passenger', 'Ana', NULL, 1)")
            }
            try pool.close()
        case .postgres:
            let earlier = PostgresMigrations.all.migrations.prefix { $0.name != "v9-vehicle-parts" }
            for step in earlier { for sql in step.step { try await TestPostgres.execute(sql, at: location) } }
            try await TestPostgres.execute("CREATE TABLE schema_migration (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())", at: location)
            for step in earlier { try await TestPostgres.execute("INSERT INTO schema_migration (name) VALUES ('\(step.name)')", at: location) }
            for (id, text) in zip(ids, Self.texts) {
                let quoted = text.replacingOccurrences(of: "'", with: "''")
                try await TestPostgres.execute("""
                    INSERT INTO account (id, role, display_name, vehicle, created_at) VALUES ('\(id)', 'driver', 'Ben', E'\(quoted.replacingOccurrences(of: "\t", with: "\\t"))', now())
                    """, at: location)
            }
            try await TestPostgres.execute("INSERT INTO account (id, role, display_name, vehicle, created_at) VALUES ('p', 'passenger', 'Ana', NULL, now())", at: location)
        }
        let store = try await StoreLocation.open(location, operationTimeout: StoreKind.testOperationTimeout)
        for (id, text) in zip(ids, Self.texts) {
            let account = try #require(try await store.account(id: id))
            #expect(account.vehicle == text, "the words are kept as they were")
            #expect(account.vehicleDetails == Vehicle(parsing: text), "\(kind): \(text)")
        }
        #expect(try await store.account(id: "p")?.vehicleDetails == nil)
        // New accounts keep their parts, plate included, and rides show them.
        let driver = try await store.createAccount(NewAccount(role: .driver, displayName: "Cy",
                                                              vehicleDetails: Vehicle(colour: "red", make: "Fiat", model: "500", plate: "xy 123")))
        #expect(try await store.account(id: driver.id)?.vehicleDetails == Vehicle(colour: "red", make: "Fiat", model: "500", plate: "XY 123"))
        #expect(try await store.account(id: driver.id)?.vehicle == "red Fiat 500")
        let passenger = try #require(try await store.account(id: "p"))
        let request = try await store.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "A", dropoff: "B"), passengerID: passenger.id, idempotency: nil)
        let ride = try await store.accept(requestID: request.id, driverID: driver.id, rideKey: Data(repeating: 1, count: 32), idempotency: nil)
        #expect(try await store.rideDetail(id: ride.id)?.driver.vehicleDetails?.spoken == "red Fiat 500, plate X Y 1 2 3")
        await store.close()
    }

    /// Who cancelled, and why, read back from the history (the wire's `cancellation`).
    @Test(arguments: StoreKind.available)
    func theCancellationIsReadFromTheHistory(kind: StoreKind) async throws {
        let store = try await kind.make()
        let cast = try await Cast(store)
        let request = try await cast.request(store)
        #expect(try await store.cancellation(requestID: request.id) == nil)
        _ = try await store.cancelRideRequest(id: request.id, by: "dispatcher-1", reason: "no drivers tonight", idempotency: nil)
        let event = try #require(try await store.cancellation(requestID: request.id))
        let cancellation = RideCancellation(event: event, passengerID: cast.passenger.id, driverID: nil)
        #expect(cancellation.by == .dispatcher && cancellation.reason == "no drivers tonight")
        let own = try await cast.request(store)
        _ = try await store.cancelRideRequest(id: own.id, by: cast.passenger.id, reason: nil, idempotency: nil)
        let ownEvent = try #require(try await store.cancellation(requestID: own.id))
        #expect(RideCancellation(event: ownEvent, passengerID: cast.passenger.id, driverID: nil).by == .passenger)
        await store.close()
    }
}
