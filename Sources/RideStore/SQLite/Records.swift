import Foundation
import GRDB

// The model types are the records: column names are their coding keys. Dates are stored as
// Unix seconds (REAL), which round-trips the millisecond values the store writes exactly.
protocol StoredRecord: FetchableRecord, PersistableRecord {}

extension StoredRecord {
    public static var databaseDateDecodingStrategy: DatabaseDateDecodingStrategy { .timeIntervalSince1970 }
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
}

extension Date {
    /// A raw SQL argument in the records' date format.
    var sqlValue: Double { timeIntervalSince1970 }
}
extension Account: StoredRecord {
    public static let databaseTableName = "account"

    /// The vehicle's parts are columns of their own (v9-vehicle-parts), not one JSON value.
    public init(row: Row) throws {
        let details: Vehicle? = (row["vehicleModel"] as String?).map {
            Vehicle(colour: row["vehicleColour"], make: row["vehicleMake"], model: $0, plate: row["vehiclePlate"])
        }
        self.init(id: row["id"], role: row["role"], displayName: row["displayName"], vehicle: row["vehicle"],
                  vehicleDetails: details, createdAt: Date(timeIntervalSince1970: row["createdAt"]))
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["role"] = role
        container["displayName"] = displayName
        container["vehicle"] = vehicle
        container["vehicleColour"] = vehicleDetails?.colour
        container["vehicleMake"] = vehicleDetails?.make
        container["vehicleModel"] = vehicleDetails?.model
        container["vehiclePlate"] = vehicleDetails?.plate
        container["createdAt"] = createdAt.sqlValue
    }
}

extension APIToken: StoredRecord {
    public static let databaseTableName = "apiToken"
}

extension RideRequestRecord: StoredRecord {
    public static let databaseTableName = "rideRequest"
}

extension RideRecord: StoredRecord {
    public static let databaseTableName = "ride"
}

extension RideEvent: StoredRecord {
    public static let databaseTableName = "rideEvent"
}

extension RideState: DatabaseValueConvertible {}
extension RideEventKind: DatabaseValueConvertible {}
extension RideRequestStatus: DatabaseValueConvertible {}
extension Role: DatabaseValueConvertible {}
