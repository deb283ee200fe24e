import Testing
import PropertyBased
@testable import BeaconCore

@Suite struct TraceParserTests {
    @Test func parsesColumnsInAnyOrderIgnoringOthers() throws {
        let text = "\u{FEFF}note, rssi_dbm ,tx_power_dbm,t_s,true_distance_m\r\nx,-60,-59,0.0,1.5\r\n\r\ny,-61.5,,0.1,\r\n"
        let trace = try TraceParser.parse(text)
        #expect(trace.samples == [
            TraceSample(time: 0, rssi: -60, trueDistance: 1.5, txPower: -59),
            TraceSample(time: 0.1, rssi: -61.5),
        ])
        #expect(trace.lines == [2, 4])
        #expect(trace.hasTrueDistance && trace.hasTxPower)
    }

    @Test func optionalColumnsMayBeAbsent() throws {
        let trace = try TraceParser.parse("t_s,rssi_dbm\n0,-70\n1,-71\n")
        #expect(trace.samples.count == 2)
        #expect(!trace.hasTrueDistance && !trace.hasTxPower)
    }

    @Test func readsTheHeraldFixtures() throws {
        let trace = try Fixtures.trace("herald-test10A-positions.csv")
        #expect(trace.samples.count == 840)
        #expect(trace.hasTrueDistance)
    }

    /// One case per error kind: the text, the line and the field it must name.
    static let errorCases: [(text: String, line: Int, field: String?, kind: TraceError.Kind)] = [
        ("", 1, nil, .empty),
        ("\n  \n", 1, nil, .empty),
        ("t_s,rssi_dbm\n", 1, nil, .noSamples),
        ("time,rssi_dbm\n0,-60\n", 1, "t_s", .missingColumn("t_s")),
        ("t_s,rssi\n0,-60\n", 1, "rssi_dbm", .missingColumn("rssi_dbm")),
        ("t_s,rssi_dbm,t_s\n0,-60,0\n", 1, "t_s", .duplicateColumn("t_s")),
        ("t_s,rssi_dbm\n0,-60\n1,-61,7\n", 3, nil, .wrongColumnCount(expected: 2, found: 3)),
        ("t_s,rssi_dbm\n0,-60\n0.1,-60\n0.2,abc\n", 4, "rssi_dbm", .notANumber(field: "rssi_dbm", text: "abc")),
        ("t_s,rssi_dbm\n0,\n", 2, "rssi_dbm", .notANumber(field: "rssi_dbm", text: "")),
        ("t_s,rssi_dbm\nsoon,-60\n", 2, "t_s", .notANumber(field: "t_s", text: "soon")),
        ("t_s,rssi_dbm\n0,nan\n", 2, "rssi_dbm", .notFinite(field: "rssi_dbm", text: "nan")),
        ("t_s,rssi_dbm\ninf,-60\n", 2, "t_s", .notFinite(field: "t_s", text: "inf")),
        ("t_s,rssi_dbm\n0,0\n", 2, "rssi_dbm", .rssiNotNegative(text: "0")),
        ("t_s,rssi_dbm\n0,12\n", 2, "rssi_dbm", .rssiNotNegative(text: "12")),
        ("t_s,rssi_dbm\n1,-60\n0.5,-60\n", 3, "t_s", .timeWentBackwards(previous: 1, current: 0.5)),
        ("t_s,rssi_dbm,true_distance_m\n0,-60,-1\n", 2, "true_distance_m", .negativeDistance(text: "-1")),
        ("t_s,rssi_dbm,true_distance_m\n0,-60,far\n", 2, "true_distance_m", .notANumber(field: "true_distance_m", text: "far")),
        ("t_s,rssi_dbm,tx_power_dbm\n0,-60,40\n", 2, "tx_power_dbm", .txPowerOutOfRange(text: "40")),
    ]

    @Test(arguments: 0..<errorCases.count)
    func reportsEachErrorWithLineAndField(index: Int) {
        let c = Self.errorCases[index]
        #expect(throws: TraceError(line: c.line, c.kind)) { try TraceParser.parse(c.text) }
        #expect(TraceError(line: c.line, c.kind).field == c.field)
    }

    @Test func messagesNameLineFieldAndText() {
        #expect(TraceError(line: 12, .notANumber(field: "rssi_dbm", text: "abc")).description
            == "line 12: rssi_dbm \"abc\" is not a number")
        #expect(TraceError(line: 3, .timeWentBackwards(previous: 1, current: 0.5)).description
            == "line 3: t_s 0.500 is earlier than the previous row's 1.000")
        // Binary junk is escaped and cut so the message stays one readable line.
        let junk = TraceError(line: 2, .notANumber(field: "t_s", text: "\u{1}\n" + String(repeating: "x", count: 80)))
        #expect(!junk.description.contains("\n"))
        #expect(junk.description.count < 80)
    }

    @Test func invalidUTF8IsAnErrorNotATrap() {
        let bytes: [UInt8] = Array("t_s,rssi_dbm\n0,".utf8) + [0xFF, 0xFE] + [0x0A]
        #expect(throws: TraceError.self) { try TraceParser.parse(bytes: bytes) }
    }

    @Test func neverTrapsOnRandomBytes() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...400)) { bytes in
            do throws(TraceError) {
                let trace = try TraceParser.parse(bytes: bytes)
                #expect(!trace.samples.isEmpty)
            } catch {
                #expect(error.line >= 1)
            }
        }
    }

    @Test func neverTrapsOnMutatedValidTraces() async throws {
        let valid = Array(try Fixtures.bytes("herald-test22A-contact-and-30cm.csv").prefix(600))
        let edits = Gen.int(in: 0...(valid.count - 1)).array(of: 1...8)
        let values = Gen.uint8().array(of: 8)
        await propertyCheck(count: 500, input: edits, values) { positions, replacements in
            var bytes = valid
            for (position, value) in zip(positions, replacements) { bytes[position] = value }
            if let cut = positions.last, cut % 3 == 0 { bytes.removeSubrange(cut...) }
            do throws(TraceError) {
                let trace = try TraceParser.parse(bytes: bytes)
                #expect(trace.samples.allSatisfy { $0.rssi < 0 && $0.time.isFinite })
            } catch {
                #expect(error.line >= 1 && !error.description.isEmpty)
            }
        }
    }
}
