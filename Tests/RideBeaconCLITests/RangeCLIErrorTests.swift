import Foundation
import RideBeaconTesting
import Testing

/// Bad input: exit status ≠ 0 and exactly one stderr line naming the file (and line/field).
@Suite(.tags(.process)) struct RangeCLIErrorTests {
    static let badTraces: [(name: String, text: String, expected: String)] = [
        ("empty.csv", "", "empty.csv: line 1: empty file"),
        ("header-only.csv", "t_s,rssi_dbm\n", "header-only.csv: line 1: no samples"),
        ("no-rssi.csv", "t_s,rssi\n0,-60\n", "no-rssi.csv: line 1: missing column rssi_dbm"),
        ("no-time.csv", "time,rssi_dbm\n0,-60\n", "no-time.csv: line 1: missing column t_s"),
        ("columns.csv", "t_s,rssi_dbm\n0,-60\n1,-61,3\n", "columns.csv: line 3: expected 2 fields"),
        ("text.csv", "t_s,rssi_dbm\n0,-60\n0.1,-61\n0.2,abc\n", "text.csv: line 4: rssi_dbm \"abc\" is not a number"),
        ("nan.csv", "t_s,rssi_dbm\n0,NaN\n", "nan.csv: line 2: rssi_dbm \"NaN\" is not a finite number"),
        ("inf.csv", "t_s,rssi_dbm\ninf,-60\n", "inf.csv: line 2: t_s \"inf\" is not a finite number"),
        ("positive.csv", "t_s,rssi_dbm\n0,5\n", "positive.csv: line 2: rssi_dbm \"5\" must be negative"),
        ("backwards.csv", "t_s,rssi_dbm\n1,-60\n0.5,-60\n", "backwards.csv: line 3: t_s 0.500 is earlier"),
        ("binary.csv", "t_s,rssi_dbm\n0,\u{1}\u{FFFD}\n", "binary.csv: line 2: rssi_dbm"),
    ]

    @Test(arguments: 0..<badTraces.count)
    func rangeRejectsABadTraceInOneLine(index: Int) async throws {
        let c = Self.badTraces[index]
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(c.name)
        try Data(c.text.utf8).write(to: file)
        let result = try await CLI.run(["range", "--trace", file.path])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("ridebeacon: \(directory.path)/"))
        #expect(result.stderr.contains(c.expected), "\(result.stderr)")
    }

    @Test func unreadableFilesAreNamed() async throws {
        let result = try await CLI.run(["range", "--trace", "/nonexistent/trace.csv"])
        #expect(result.status != 0)
        #expect(result.stderrLines == ["ridebeacon: /nonexistent/trace.csv: cannot read: No such file or directory"])
    }

    static let badCalibrations: [(json: String, expected: String)] = [
        ("{", "not valid JSON"),
        (#"{"exponent": 2}"#, "missing field tx_power_dbm"),
        (#"{"tx_power_dbm": -59, "exponent": "two"}"#, "exponent must be a number"),
        (#"{"tx_power_dbm": 50, "exponent": 2}"#, "tx_power_dbm 50.000 is outside -120.0…20.0"),
        (#"{"tx_power_dbm": -59, "exponent": 0.2}"#, "exponent 0.200 is outside 1.0…6.0"),
    ]

    @Test(arguments: 0..<badCalibrations.count)
    func rangeRejectsABadCalibrationNamingTheField(index: Int) async throws {
        let c = Self.badCalibrations[index]
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cal.json")
        try Data(c.json.utf8).write(to: file)
        let result = try await CLI.run(["range", "--trace", CLI.fixture("herald-test12B-positions.csv"), "--calibration", file.path])
        #expect(result.status != 0)
        #expect(result.stderrLines == ["ridebeacon: \(file.path): \(c.expected)"])
    }

    @Test func rangeRejectsAbsurdModelOptions() async throws {
        let trace = CLI.fixture("herald-test12B-positions.csv")
        let power = try await CLI.run(["range", "--trace", trace, "--tx-power", "40"])
        #expect(power.status != 0 && power.stderrLines.count == 1 && power.stderr.contains("--tx-power"))
        let exponent = try await CLI.run(["range", "--trace", trace, "--exponent", "9"])
        #expect(exponent.status != 0 && exponent.stderrLines.count == 1 && exponent.stderr.contains("--exponent"))
        let both = try await CLI.run(["range", "--trace", trace, "--exponent", "2", "--calibration", CLI.fixture("herald-test22A.calibration.json")])
        #expect(both.status != 0 && both.stderrLines.count == 1)
    }

    @Test func calibrateNeedsTrueDistances() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("plain.csv")
        try Data("t_s,rssi_dbm\n0,-60\n1,-61\n".utf8).write(to: plain)
        let result = try await CLI.run(["calibrate", "--trace", plain.path])
        #expect(result.status != 0)
        #expect(result.stderrLines == ["ridebeacon: \(plain.path): no true_distance_m values: calibration needs traces recorded at known distances"])

        let one = directory.appendingPathComponent("one.csv")
        try Data("t_s,rssi_dbm,true_distance_m\n0,-60,1\n1,-61,1\n".utf8).write(to: one)
        let single = try await CLI.run(["calibrate", "--trace", one.path])
        #expect(single.status != 0)
        #expect(single.stderrLines.count == 1 && single.stderr.contains("2 or more distinct distances"))
        #expect(single.stderr.contains(one.path))
    }
}
