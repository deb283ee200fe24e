/// Fixed-point decimal formatting that is deterministic across platforms and locales and never
/// traps (ranging CSV and calibration JSON must be byte-identical run to run).
public enum FixedDecimal {
    /// `value` with exactly `places` decimals (0...9), e.g. `-59.000`; NaN and infinities as
    /// `nan`, `inf`, `-inf`; magnitudes ≥ 1e9 in Swift's shortest round-trip form (no distance,
    /// time or level we print gets there; the bound keeps the integer arithmetic exact).
    public static func format(_ value: Double, places: Int = 3) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        guard abs(value) < 1e9 else { return String(describing: value) }
        let places = min(9, max(0, places))
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        // < 1e9 · 1e9 = 1e18 < Int64.max: exact conversion, no trap.
        let units = Int64((abs(value) * Double(scale)).rounded())
        var out = units != 0 && value < 0 ? "-" : ""
        out += String(units / scale)
        if places > 0 {
            let fraction = String(units % scale)
            out += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return out
    }
}
