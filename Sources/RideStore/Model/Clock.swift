import Foundation

extension Date {
    /// Now, to the millisecond: both databases keep milliseconds, so a value read back
    /// equals the value written.
    static var storeNow: Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

enum StoreID {
    static func make() -> String { UUID().uuidString.lowercased() }
}
