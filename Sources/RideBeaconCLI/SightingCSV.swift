import BeaconCore

/// The CSV rows `scan` prints, one per sighting.
enum SightingCSV {
    static let header = "t_s,address,uuid,major,minor,measured_power_dbm,rssi_dbm"

    static func row(_ s: BeaconSighting) -> String {
        let rssi = s.rssi.map { String($0) } ?? ""
        return "\(seconds(microseconds: s.unixMicroseconds)),\(s.address),\(s.beacon.uuid.uuidString),"
            + "\(s.beacon.major),\(s.beacon.minor),\(s.beacon.measuredPower),\(rssi)"
    }

    /// Seconds with exactly six decimals, formatted from the integer so no digit is lost to floating point.
    static func seconds(microseconds: Int64) -> String {
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1_000_000)
        let padded = String(repeating: "0", count: 6 - fraction.count) + fraction
        return "\(microseconds < 0 ? "-" : "")\(magnitude / 1_000_000).\(padded)"
    }
}
