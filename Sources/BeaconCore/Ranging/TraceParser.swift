/// Reads RSSI trace CSV. Works on bytes so that no input, invalid UTF-8 included, can trap;
/// every problem is a `TraceError` naming the line and field.
public enum TraceParser {
    /// Seconds since any origin, non-decreasing (required).
    public static let timeColumn = "t_s"
    /// Received signal strength, dBm (required).
    public static let rssiColumn = "rssi_dbm"
    /// The true distance, metres, for scoring (optional).
    public static let distanceColumn = "true_distance_m"
    /// The advertiser's measured power at 1 m, dBm (optional).
    public static let txPowerColumn = "tx_power_dbm"

    /// Parses a trace file's text:
    ///
    /// ```swift
    /// let trace = try TraceParser.parse("t_s,rssi_dbm\n0.0,-60\n0.1,-61\n")
    /// trace.samples.count   // 2
    /// ```
    public static func parse(_ text: String) throws(TraceError) -> Trace {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses raw bytes (invalid UTF-8 included: an error, never a trap).
    public static func parse(bytes: [UInt8]) throws(TraceError) -> Trace {
        var lines = LineSplitter(bytes)
        // Header: the first non-blank line.
        var headerLine = 0
        var header: [String] = []
        while let (number, range) = lines.next() {
            let fields = split(bytes, range)
            if fields.count == 1 && isBlank(bytes, fields[0]) { continue }
            headerLine = number
            header = fields.map { columnName(bytes, $0) }
            break
        }
        guard headerLine > 0 else { throw TraceError(line: 1, .empty) }
        let columns = try Columns(header, line: headerLine)

        var samples: [TraceSample] = []
        var sampleLines: [Int] = []
        var previousTime = -Double.infinity
        while let (lineNumber, range) = lines.next() {
            let fields = split(bytes, range)
            if fields.count == 1 && isBlank(bytes, fields[0]) { continue }
            guard fields.count == header.count else {
                throw TraceError(line: lineNumber, .wrongColumnCount(expected: header.count, found: fields.count))
            }
            let time = try number(bytes, fields[columns.time], timeColumn, line: lineNumber)
            let rssiText = fields[columns.rssi]
            let rssi = try number(bytes, rssiText, rssiColumn, line: lineNumber)
            guard rssi < 0 else { throw TraceError(line: lineNumber, .rssiNotNegative(text: text(bytes, rssiText))) }
            guard time >= previousTime else {
                throw TraceError(line: lineNumber, .timeWentBackwards(previous: previousTime, current: time))
            }
            previousTime = time
            var sample = TraceSample(time: time, rssi: rssi)
            if let c = columns.distance, !isBlank(bytes, fields[c]) {
                let d = try number(bytes, fields[c], distanceColumn, line: lineNumber)
                guard d >= 0 else { throw TraceError(line: lineNumber, .negativeDistance(text: text(bytes, fields[c]))) }
                sample.trueDistance = d
            }
            if let c = columns.txPower, !isBlank(bytes, fields[c]) {
                let p = try number(bytes, fields[c], txPowerColumn, line: lineNumber)
                guard PathLossModel.txPowerRange.contains(p) else {
                    throw TraceError(line: lineNumber, .txPowerOutOfRange(text: text(bytes, fields[c])))
                }
                sample.txPower = p
            }
            samples.append(sample)
            sampleLines.append(lineNumber)
        }
        guard !samples.isEmpty else { throw TraceError(line: headerLine, .noSamples) }
        return Trace(samples: samples, lines: sampleLines,
                     hasTrueDistance: samples.contains { $0.trueDistance != nil },
                     hasTxPower: samples.contains { $0.txPower != nil })
    }

    /// Where each known column sits in the header.
    private struct Columns {
        var time = 0, rssi = 0
        var distance: Int?, txPower: Int?

        init(_ header: [String], line: Int) throws(TraceError) {
            func find(_ name: String) throws(TraceError) -> Int? {
                let hits = header.indices.filter { header[$0] == name }
                guard hits.count <= 1 else { throw TraceError(line: line, .duplicateColumn(name)) }
                return hits.first
            }
            guard let t = try find(TraceParser.timeColumn) else {
                throw TraceError(line: line, .missingColumn(TraceParser.timeColumn))
            }
            guard let r = try find(TraceParser.rssiColumn) else {
                throw TraceError(line: line, .missingColumn(TraceParser.rssiColumn))
            }
            time = t
            rssi = r
            distance = try find(TraceParser.distanceColumn)
            txPower = try find(TraceParser.txPowerColumn)
        }
    }

    private static func number(_ bytes: [UInt8], _ range: Range<Int>, _ field: String, line: Int) throws(TraceError) -> Double {
        let t = text(bytes, range)
        // Swift's parser accepts "nan" and "inf": let it, then reject them by name.
        guard !t.isEmpty, t.utf8.count <= 64, let value = Double(t) else {
            throw TraceError(line: line, .notANumber(field: field, text: t))
        }
        guard value.isFinite else { throw TraceError(line: line, .notFinite(field: field, text: t)) }
        return value
    }

    /// Field text without surrounding spaces, tabs or double quotes; invalid UTF-8 becomes U+FFFD.
    private static func text(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, isTrimmable(bytes[lo]) { lo += 1 }
        while hi > lo, isTrimmable(bytes[hi - 1]) { hi -= 1 }
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }

    private static func columnName(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        var name = text(bytes, range)
        if name.hasPrefix("\u{FEFF}") { name.removeFirst() }  // a UTF-8 byte order mark
        return name
    }

    private static func isTrimmable(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x22 }

    private static func isBlank(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        bytes[range].allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    private static func split(_ bytes: [UInt8], _ line: Range<Int>) -> [Range<Int>] {
        var fields: [Range<Int>] = []
        var start = line.lowerBound
        for i in line where bytes[i] == 0x2C {
            fields.append(start..<i)
            start = i + 1
        }
        fields.append(start..<line.upperBound)
        return fields
    }

    /// Yields (1-based number, byte range without the line terminator) for LF and CRLF text.
    private struct LineSplitter {
        let bytes: [UInt8]
        var position = 0
        var number = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func next() -> (Int, Range<Int>)? {
            guard position < bytes.count else { return nil }
            number += 1
            let start = position
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            position = end + 1
            var stop = end
            if stop > start && bytes[stop - 1] == 0x0D { stop -= 1 }
            return (number, start..<stop)
        }
    }
}
