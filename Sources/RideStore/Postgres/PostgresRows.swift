import Foundation
import PostgresNIO

/// Enums travel as their raw text; an unknown value in the database is a decoding error.
func stored<T: RawRepresentable<String>>(_ raw: String, as: T.Type = T.self) throws -> T {
    guard let value = T(rawValue: raw) else { throw StoreError.invalid("unknown \(T.self) '\(raw)' in database") }
    return value
}

extension Date {
    /// timestamptz keeps microseconds and the round trip through it can move a value by one;
    /// the store only writes whole milliseconds, so rounding restores the exact value written.
    var wholeMilliseconds: Date { Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000) }
}

// Column lists and decoders live together so a SELECT and its decode cannot drift apart.
enum PGColumns {
    static let account = "id, role, display_name, vehicle, created_at, vehicle_colour, vehicle_make, vehicle_model, vehicle_plate"
    static let request = "id, passenger_id, passenger_name, pickup, dropoff, accessibility_notes, status, created_at, ride_id, short_code"
    static let ride = "id, request_id, passenger_id, driver_id, state, key, created_at, state_changed_at, short_code, eta_minutes, eta_given_at"
    static let event = "id, request_id, ride_id, sequence, kind, state, actor_id, at, detail"
    /// A ride joined with its people; decoded by `RideDetail(row:)`.
    static let rideDetail = """
        r.id, r.request_id, r.passenger_id, r.driver_id, r.state, r.key, r.created_at, r.state_changed_at,
        r.short_code, r.eta_minutes, r.eta_given_at,
        p.display_name, d.display_name, d.vehicle, q.pickup, q.dropoff, q.accessibility_notes,
        d.vehicle_colour, d.vehicle_make, d.vehicle_model, d.vehicle_plate, pl.language
        FROM ride r JOIN account p ON p.id = r.passenger_id JOIN account d ON d.id = r.driver_id
        JOIN ride_request q ON q.id = r.request_id
        LEFT JOIN account_language pl ON pl.account_id = r.passenger_id
        """
}

extension Account {
    init(row: PostgresRow) throws {
        let (id, role, name, vehicle, created, colour, make, model, plate) =
            try row.decode((String, String, String, String?, Date, String?, String?, String?, String?).self)
        self.init(id: id, role: try stored(role), displayName: name, vehicle: vehicle,
                  vehicleDetails: model.map { Vehicle(colour: colour, make: make, model: $0, plate: plate) },
                  createdAt: created.wholeMilliseconds)
    }
}

extension RideRequestRecord {
    init(row: PostgresRow) throws {
        let (id, passenger, name, pickup, dropoff, notes, status, created, ride, code) =
            try row.decode((String, String, String, String, String, String?, String, Date, String?, String?).self)
        self.init(id: id, passengerID: passenger, passengerName: name, pickup: pickup, dropoff: dropoff,
                  accessibilityNotes: notes, status: try stored(status), createdAt: created.wholeMilliseconds, rideID: ride,
                  shortCode: code)
    }
}

extension RideRecord {
    init(row: PostgresRow) throws {
        let (id, request, passenger, driver, state, key, created, changed, code, eta, etaAt) =
            try row.decode((String, String, String, String, String, Data, Date, Date, String?, Int?, Date?).self)
        self.init(id: id, requestID: request, passengerID: passenger, driverID: driver, state: try stored(state), key: key,
                  createdAt: created.wholeMilliseconds, stateChangedAt: changed.wholeMilliseconds,
                  shortCode: code, etaMinutes: eta, etaGivenAt: etaAt?.wholeMilliseconds)
    }
}

extension RideDetail {
    init(row: PostgresRow) throws {
        // The ride's own columns come first, as `RideRecord(row:)` reads them. One pass over the
        // row: a second one decoded the ride's 11 columns again for every ride of a listing.
        let (id, request, passenger, driverID, state, key, created, changed, code, eta, etaAt,
             passengerName, driverName, vehicle, pickup, dropoff, notes, colour, make, model, plate, language) =
            try row.decode((String, String, String, String, String, Data, Date, Date, String?, Int?, Date?,
                            String, String, String?, String, String, String?, String?, String?, String?, String?, String?).self)
        let ride = RideRecord(id: id, requestID: request, passengerID: passenger, driverID: driverID, state: try stored(state), key: key,
                              createdAt: created.wholeMilliseconds, stateChangedAt: changed.wholeMilliseconds,
                              shortCode: code, etaMinutes: eta, etaGivenAt: etaAt?.wholeMilliseconds)
        let details = model.map { Vehicle(colour: colour, make: make, model: $0, plate: plate) }
        self.init(ride: ride, passenger: RideParty(name: passengerName, language: language),
                  driver: RideParty(name: driverName, vehicle: vehicle, vehicleDetails: details),
                  pickup: pickup, dropoff: dropoff, accessibilityNotes: notes)
    }
}

extension RideEvent {
    init(row: PostgresRow) throws {
        let (id, request, ride, sequence, kind, state, actor, at, detail) =
            try row.decode((Int64, String, String?, Int, String, String, String, Date, String?).self)
        self.init(id: id, requestID: request, rideID: ride, sequence: sequence, kind: RideEventKind(rawValue: kind),
                  state: try stored(state), actorID: actor,
                  at: at.wholeMilliseconds, detail: detail)
    }
}

extension PostgresRowSequence {
    func all<T>(_ make: (PostgresRow) throws -> T) async throws -> [T] {
        var out: [T] = []
        for try await row in self { out.append(try make(row)) }
        return out
    }
}
