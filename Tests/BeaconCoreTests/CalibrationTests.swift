import Testing
import PropertyBased
@testable import BeaconCore

@Suite struct CalibrationTests {
    @Test func parsesRequiredAndOptionalFields() throws {
        let c = try Calibration.parse(json: """
            {"tx_power_dbm": -61.5, "exponent": 2.2, "residual_db": 3.1, "samples": 1200,
             "touch_rssi_dbm": -33, "source": "bench", "unknown": [1, {"x": 2}]}
            """)
        #expect(c.model == PathLossModel(txPower: -61.5, exponent: 2.2))
        #expect(c.residual == 3.1 && c.samples == 1200 && c.touchRSSI == -33 && c.source == "bench")
        #expect(c.effectiveTouchRSSI == -33)

        let minimal = try Calibration.parse(json: #"{"exponent": 2, "tx_power_dbm": -59}"#)
        #expect(minimal.touchRSSI == nil && minimal.samples == nil)
        #expect(minimal.effectiveTouchRSSI == TouchLevelRule.default.threshold(for: minimal.model))
    }

    @Test func roundTripsThroughItsJSON() throws {
        let c = Calibration(model: PathLossModel(txPower: -63.25, exponent: 1.875), touchRSSI: -30.5,
                            residual: 4.25, samples: 77, source: "a \"quoted\" name\n")
        #expect(try Calibration.parse(json: c.json) == c)
        #expect(c.json == c.json)  // deterministic
    }

    static let errorCases: [(json: String, error: CalibrationError)] = [
        ("", CalibrationError(field: "", .notJSON)),
        ("{\"tx_power_dbm\": -59,", CalibrationError(field: "", .notJSON)),
        ("[1, 2]", CalibrationError(field: "", .notAnObject)),
        ("-59", CalibrationError(field: "", .notAnObject)),
        (#"{"exponent": 2}"#, CalibrationError(field: "tx_power_dbm", .missingField)),
        (#"{"tx_power_dbm": -59}"#, CalibrationError(field: "exponent", .missingField)),
        (#"{"tx_power_dbm": null, "exponent": 2}"#, CalibrationError(field: "tx_power_dbm", .missingField)),
        (#"{"tx_power_dbm": "-59", "exponent": 2}"#, CalibrationError(field: "tx_power_dbm", .wrongType(expected: "a number"))),
        (#"{"tx_power_dbm": -59, "exponent": true}"#, CalibrationError(field: "exponent", .wrongType(expected: "a number"))),
        (#"{"tx_power_dbm": -59, "exponent": [2]}"#, CalibrationError(field: "exponent", .wrongType(expected: "a number"))),
        (#"{"tx_power_dbm": 35, "exponent": 2}"#, CalibrationError(field: "tx_power_dbm", .outOfRange(value: 35, range: -120...20))),
        (#"{"tx_power_dbm": -200, "exponent": 2}"#, CalibrationError(field: "tx_power_dbm", .outOfRange(value: -200, range: -120...20))),
        (#"{"tx_power_dbm": -59, "exponent": 0.4}"#, CalibrationError(field: "exponent", .outOfRange(value: 0.4, range: 1...6))),
        (#"{"tx_power_dbm": -59, "exponent": 9}"#, CalibrationError(field: "exponent", .outOfRange(value: 9, range: 1...6))),
        (#"{"tx_power_dbm": -59, "exponent": 2, "samples": 2.5}"#, CalibrationError(field: "samples", .wrongType(expected: "a whole number"))),
        (#"{"tx_power_dbm": -59, "exponent": 2, "source": 5}"#, CalibrationError(field: "source", .wrongType(expected: "a string"))),
        (#"{"tx_power_dbm": -59, "exponent": 2, "touch_rssi_dbm": 40}"#, CalibrationError(field: "touch_rssi_dbm", .outOfRange(value: 40, range: -127...20))),
    ]

    @Test(arguments: 0..<errorCases.count)
    func rejectsWithTheFieldNamed(index: Int) {
        let c = Self.errorCases[index]
        #expect(throws: c.error) { try Calibration.parse(json: c.json) }
    }

    @Test func messagesNameTheField() {
        #expect(CalibrationError(field: "exponent", .missingField).description == "missing field exponent")
        #expect(CalibrationError(field: "tx_power_dbm", .outOfRange(value: 35, range: -120...20)).description
            == "tx_power_dbm 35.000 is outside -120.0…20.0")
        #expect(CalibrationError(field: "exponent", .wrongType(expected: "a number")).description == "exponent must be a number")
    }

    @Test func readsTheFixture() throws {
        let c = try Fixtures.calibration("herald-test22A.calibration.json")
        #expect(PathLossModel.exponentRange.contains(c.model.exponent))
        #expect(c.touchRSSI != nil)
    }

    @Test func neverTrapsOnRandomBytes() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...400)) { bytes in
            do throws(CalibrationError) {
                let c = try Calibration.parse(json: bytes)
                #expect(PathLossModel.exponentRange.contains(c.model.exponent))
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test func neverTrapsOnMutatedValidJSON() async {
        let valid = Array(#"{"tx_power_dbm": -61.5, "exponent": 2.25, "samples": 10, "source": "x", "touch_rssi_dbm": -30}"#.utf8)
        let edits = Gen.int(in: 0...(valid.count - 1)).array(of: 1...6)
        let values = Gen.uint8().array(of: 6)
        await propertyCheck(count: 500, input: edits, values) { positions, replacements in
            var bytes = valid
            for (position, value) in zip(positions, replacements) { bytes[position] = value }
            do throws(CalibrationError) {
                let c = try Calibration.parse(json: bytes)
                #expect(PathLossModel.txPowerRange.contains(c.model.txPower))
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test func deepNestingIsRejectedNotFatal() {
        let deep = #"{"tx_power_dbm": -59, "exponent": 2, "x": "# + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "}"
        // Either outcome is fine; what matters is no crash and a calibration if accepted.
        if let c = try? Calibration.parse(json: deep) { #expect(c.model.exponent == 2) }
    }
}
