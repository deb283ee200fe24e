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
