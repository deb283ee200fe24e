import Foundation

/// The API's timestamps: RFC 3339 in UTC with milliseconds when written; with or without
/// fractional seconds, and with a lower-case `t` or `z`, when read (RFC 3339 allows them,
/// Foundation's parser does not).
public enum WireDates {
    /// Made once: building the style per call cost as much as formatting with it.
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `2026-01-01T12:00:00.000Z`, to the nearest millisecond. Written by hand: the format style
    /// cost a tenth of a ride GET, and it truncates, so a stored `.123` (a binary fraction a
    /// hair below it) came back as `.122`.
    public static func format(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // 1900 to 9999 only; anything else (never a real ride; before 1582 the style is Julian)
        // goes to the format style.
        guard milliseconds >= -2_208_988_800_000, milliseconds < 253_402_300_800_000 else { return style.format(date) }
        let total = Int64(milliseconds)
        let seconds = total.floorDivided(by: 1000)
        let millisecond = Int(total - seconds * 1000)
        let day = seconds.floorDivided(by: 86_400)
        let secondOfDay = Int(seconds - day * 86_400)
        let (year, month, dayOfMonth) = civilDate(daysSince1970: day)
        var text = [UInt8]()
        text.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 { text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10)); divisor /= 10 }
        }
        digits(year, 4); text.append(UInt8(ascii: "-"))
        digits(month, 2); text.append(UInt8(ascii: "-"))
        digits(dayOfMonth, 2); text.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2); text.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2); text.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2); text.append(UInt8(ascii: "."))
        digits(millisecond, 3); text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// Proleptic Gregorian year, month, day of a day count from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    private static func civilDate(daysSince1970 days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// nil unless `text` is an RFC 3339 date-time.
    public static func parse(_ text: String) -> Date? {
        let normalized = text.uppercased()
        return (try? style.parse(normalized)) ?? (try? Date.ISO8601FormatStyle().parse(normalized))
    }

    /// The API's encoder: sorted keys (a replayed response is byte-for-byte the first one),
    /// slashes unescaped, dates as above. `WireJSONWriter` writes the same bytes for the hot types.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    /// A decoder for the API's bodies (dates as above).
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date-time: \(text)")
            }
            return date
        }
        return decoder
    }
}

private extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
