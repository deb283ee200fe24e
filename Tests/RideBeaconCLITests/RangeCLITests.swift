import Foundation
import RideBeaconTesting
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif


@Suite(.tags(.process)) struct RangeCLITests {
    static let header = "t_s,rssi_dbm,filtered_rssi_dbm,distance_m,zone,trend,touch,claim_min_m,claim_max_m"
    static let traces = ["herald-test10A-positions.csv", "herald-test10A-step-3m-to-0.5m.csv",
                         "herald-test12B-positions.csv", "herald-test12B-step-2.5m-to-0.3m.csv",
                         "herald-test22A-contact-and-30cm.csv"]

    @Test(arguments: traces)
    func printsOneRowPerInputRowDeterministically(trace: String) async throws {
        let path = CLI.fixture(trace)
        let first = try await CLI.run(["range", "--trace", path])
        #expect(first.status == 0, "\(first.stderr)")
        let lines = first.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first.map(String.init) == Self.header)
        let inputRows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count - 1
        #expect(lines.count - 1 == inputRows)
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            #expect(fields.count == 9)
            #expect(["touch", "immediate", "near", "far", "unknown"].contains(String(fields[4])))
            #expect(["closer", "farther", "steady", "unknown"].contains(String(fields[5])))
            #expect(fields[6] == "0" || fields[6] == "1")
            #expect(fields[3].split(separator: ".").last?.count == 3)  // fixed 3 decimals
            // A claim: both empty (none), a lower bound (max empty), or an interval.
            if fields[7].isEmpty { #expect(fields[8].isEmpty) }
            if let low = Double(fields[7]), let high = Double(fields[8]) { #expect(low < high) }
        }
        let second = try await CLI.run(["range", "--trace", path])
        #expect(second.stdout == first.stdout)
    }

    @Test func modelOptionsAndCalibrationFileChangeTheDistance() async throws {
        let path = CLI.fixture("herald-test12B-positions.csv")
        let byDefault = try await CLI.run(["range", "--trace", path])
        let byOptions = try await CLI.run(["range", "--trace", path, "--tx-power", "-45", "--exponent", "3"])
        let byFile = try await CLI.run(["range", "--trace", path, "--calibration", CLI.fixture("herald-test22A.calibration.json")])
        #expect(byDefault.status == 0 && byOptions.status == 0 && byFile.status == 0)
        let distances = [byDefault, byOptions, byFile].map { $0.stdout.split(separator: "\n")[1].split(separator: ",")[3] }
        #expect(Set(distances).count == 3)
        // First row: -45 dBm with A = -45 is 1 m whatever n.
        #expect(byOptions.stdout.split(separator: "\n")[1].hasPrefix("2412.000,-45.000,-45.000,1.000,near,unknown,0,,"))
    }

    @Test func touchIsFlaggedOnTheContactFixture() async throws {
        let result = try await CLI.run(["range", "--trace", CLI.fixture("herald-test22A-contact-and-30cm.csv"),
                                  "--calibration", CLI.fixture("herald-test22A.calibration.json")])
        let touches = result.stdout.split(separator: "\n").dropFirst().filter {
            $0.split(separator: ",", omittingEmptySubsequences: false)[6] == "1"
        }
        #expect(touches.count > 100)
    }

    @Test func plotWritesAReadableSVG() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("plot.svg")
        let result = try await CLI.run(["range", "--trace", CLI.fixture("herald-test12B-step-2.5m-to-0.3m.csv"), "--plot", svg.path])
        #expect(result.status == 0)
        let data = try Data(contentsOf: svg)
        let text = String(decoding: data, as: UTF8.self)
        #expect(XMLParser(data: data).parse(), "not well-formed XML")
        #expect(text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(text.contains(">herald-test12B-step-2.5m-to-0.3m.csv</text>"))  // title
        for series in ["RSSI samples", "filtered RSSI", "estimated distance", "true distance"] {
            #expect(text.contains("data-series=\"\(series)\""), "missing series \(series)")
        }
        for label in ["RSSI (dBm)", "distance (m, log scale)", "time (s)"] { #expect(text.contains(label)) }
        #expect(text.components(separatedBy: "<circle").count > 300)  // a dot per sample, plus legend
    }

    @Test func calibratePrintsJSONAndTheResidual() async throws {
        let result = try await CLI.run(["calibrate", "--trace", CLI.fixture("herald-test10A-positions.csv"),
                                  CLI.fixture("herald-test12B-positions.csv")])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        for key in ["tx_power_dbm", "exponent", "residual_db", "samples", "touch_rssi_dbm"] {
            #expect(json[key] is NSNumber, "missing \(key)")
        }
        #expect((json["samples"] as? Int) == 840 - 120 + 320 - 80)  // contact rows are not fitted
        #expect(result.stderrLines.count == 1 && result.stderr.contains("residual"))
        // And range accepts what calibrate wrote.
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cal.json")
        try Data(result.stdout.utf8).write(to: file)
        #expect(try await CLI.run(["range", "--trace", CLI.fixture("herald-test12B-positions.csv"), "--calibration", file.path]).status == 0)
    }
}
