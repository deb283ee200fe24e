import Testing
@testable import BeaconCore

@Suite struct HCIEventTests {
    // Two legacy reports, per-report sequential (Core Spec 5.x §7.7.65.2):
    // ADV_NONCONN_IND from random C0:FF:EE:00:00:01 with flags data, RSSI -60;
    // ADV_IND from public 00:11:22:33:44:55, no data, RSSI 127 (not available).
    static let twoLegacyReports = hexBytes("""
        3E 19  02  02
        03 01  01 00 00 EE FF C0  03  02 01 06  C4
        00 00  55 44 33 22 11 00  00            7F
        """)

    // Two extended reports (§7.7.65.13):
    // 1: event type 0x0181 (connectable, reserved bits 7 and 8), random F0:0D:CA:FE:12:34, PHYs 1/2,
    //    SID 3, TX -4 dBm, RSSI n/a, data AA BB.
    // 2: event type 0x0040 (truncated), anonymous, PHYs 3/3, no SID, no TX power, RSSI -80,
    //    periodic interval 16, directed to random 01:02:03:04:05:06, no data.
    static let twoExtendedReports = hexBytes("""
        3E 34  0D  02
        81 01  01  34 12 FE CA 0D F0  01  02  03  FC  7F  00 00  00  00 00 00 00 00 00  02  AA BB
        40 00  FF  00 00 00 00 00 00  03  03  FF  7F  B0  10 00  01  06 05 04 03 02 01  00
        """)

    @Test func commandComplete() throws {
        let event = try HCIEvent(packet: hexBytes("0E 04 01 03 0C 00")[...])
        guard case .commandComplete(let complete) = event else { Issue.record("got \(event)"); return }
        #expect(complete.numHCICommandPackets == 1)
        #expect(complete.opcode == .reset)
        #expect(complete.status == .success)
        let features = try HCIEvent(packet: hexBytes("0E 0C 01 03 20 00 FF 79 01 00 00 00 00 00")[...])
        guard case .commandComplete(let read) = features else { Issue.record("got \(features)"); return }
        #expect(read.opcode == .leReadLocalSupportedFeatures)
        #expect(Array(read.returnParameters) == hexBytes("00 FF 79 01 00 00 00 00 00"))
        let noop = try HCIEvent(packet: hexBytes("0E 03 01 00 00")[...])
        guard case .commandComplete(let credits) = noop else { Issue.record("got \(noop)"); return }
        #expect(credits.status == nil)
    }

    @Test func commandStatusAndDisconnection() throws {
        #expect(try HCIEvent(packet: hexBytes("0F 04 02 01 06 04")[...])
                == .commandStatus(.init(status: .unknownConnectionIdentifier, numHCICommandPackets: 1, opcode: HCIOpcode(rawValue: 0x0406))))
        #expect(try HCIEvent(packet: hexBytes("05 04 00 40 00 13")[...])
                == .disconnectionComplete(.init(status: .success, connectionHandle: 0x40, reason: .remoteUserTerminatedConnection)))
        #expect(throws: DecodeError.self) { try HCIEvent(packet: hexBytes("0F 05 00 01 06 04 00")[...]) }
        #expect(throws: DecodeError.self) { try HCIEvent(packet: hexBytes("0F 03 00 01 06")[...]) }
    }

    @Test func severalLegacyReportsInOneEvent() throws {
        let reports = try HCIEvent(packet: Self.twoLegacyReports[...]).advertisingReports
        #expect(reports.count == 2)
        let first = try #require(reports.first)
        #expect(first.isLegacy)
        #expect(first.address.description == "C0:FF:EE:00:00:01")
        #expect(first.addressType == .randomDevice)
        #expect(first.eventType == 0x03)
        #expect(first.properties == [.legacy])
        #expect(first.dataStatus == .complete)
        #expect(first.rssi == -60)
        #expect(Array(first.data) == [0x02, 0x01, 0x06])
        #expect(first.advertisingSID == nil && first.txPower == nil && first.primaryPHY == .le1M)
        let second = reports[1]
        #expect(second.address == BDAddress("00:11:22:33:44:55"))
        #expect(second.addressType == .publicDevice)
        #expect(second.properties == [.legacy, .connectable, .scannable])
        #expect(second.rssi == nil)
        #expect(second.data.isEmpty)
    }

    @Test func severalExtendedReportsInOneEvent() throws {
        let event = try HCIEvent(packet: Self.twoExtendedReports[...])
        guard case .leExtendedAdvertisingReport(let reports) = event else { Issue.record("got \(event)"); return }
        #expect(reports.count == 2)
        let first = reports[0]
        #expect(!first.isLegacy)
        #expect(first.eventType == 0x0181)
        #expect(first.properties == [.connectable])
        #expect(first.dataStatus == .complete)
        #expect(first.address.description == "F0:0D:CA:FE:12:34")
        #expect(first.primaryPHY == .le1M && first.secondaryPHY == .le2M)
        #expect(first.advertisingSID == 3)
        #expect(first.txPower == -4)
        #expect(first.rssi == nil)
        #expect(Array(first.data) == [0xAA, 0xBB])
        let second = reports[1]
        #expect(second.dataStatus == .incompleteTruncated)
        #expect(second.addressType == .anonymous)
        #expect(second.primaryPHY == .leCoded && second.secondaryPHY == .leCoded)
        #expect(second.advertisingSID == nil && second.txPower == nil)
        #expect(second.rssi == -80)
        #expect(second.periodicAdvertisingInterval == 16)
        #expect(second.directAddressType == .randomDevice)
        #expect(second.directAddress.description == "01:02:03:04:05:06")
        #expect(second.data.isEmpty)
    }

    @Test func extendedDataStatusBits() {
        func status(_ eventType: UInt16) -> AdvertisingReport.DataStatus {
            AdvertisingReport(eventType: eventType, addressType: .publicDevice, address: .zero, rssi: nil, data: []).dataStatus
        }
        #expect(status(0x0000) == .complete)
        #expect(status(0x0020) == .incompleteMoreToCome)
        #expect(status(0x0040) == .incompleteTruncated)
        #expect(status(0x0060) == .reserved)
        #expect(status(0xFF80 | 0x20) == .incompleteMoreToCome)
    }

    @Test func unknownEventsAndSubeventsAreValuesNotErrors() throws {
        #expect(try HCIEvent(packet: hexBytes("FF 03 01 02 03")[...]) == .unknown(code: 0xFF, parameters: [1, 2, 3]))
        #expect(try HCIEvent(packet: hexBytes("3E 04 14 40 00 01")[...]) == .unknownLEMeta(subevent: 0x14, parameters: [0x40, 0x00, 0x01]))
        #expect(try HCIEvent(packet: hexBytes("13 00")[...]) == .unknown(code: 0x13, parameters: []))
    }

    @Test func malformedEventsAreTypedErrors() {
        func error(_ hex: String) -> DecodeError? {
            do { _ = try HCIEvent(packet: hexBytes(hex)[...]); return nil } catch { return error }
        }
        // Parameter length byte disagreeing with the bytes present.
        #expect(error("0E 05 01 03 0C 00")?.kind == .truncated)
        #expect(error("0E 03 01 03 0C 00")?.kind == .trailingBytes)
        #expect(error("0E")?.kind == .truncated)
        #expect(error("3E 00")?.kind == .truncated)
        #expect(error("3E 01 02")?.kind == .truncated)
        // Num_Reports says 3, one report present.
        let short = error("3E 0F 02 03  03 01 01 00 00 EE FF C0 03 02 01 06 C4")
        #expect(short?.kind == .truncated)
        #expect(short?.offset == 17)
        #expect(short?.reason.contains("report 2") == true)
        // Data_Length 0x20 runs past the end.
        #expect(error("3E 0D 02 01  03 01 01 00 00 EE FF C0 20 02 01")?.kind == .truncated)
        // A byte after the last report.
        #expect(error("3E 0D 02 01  03 01 01 00 00 EE FF C0 00 C4 99")?.kind == .trailingBytes)
        // Extended: header cut short, then data length past the end.
        #expect(error("3E 05 0D 01 00 00 01")?.kind == .truncated)
        var extended = Self.twoExtendedReports
        extended[2 + 2 + 23] = 0x30
        #expect(error(extended.map { hex($0) }.joined())?.kind == .truncated)
    }

    @Test func fastPathSeesTheSameReportsAsFullDecode() throws {
        for packet in [Self.twoLegacyReports, Self.twoExtendedReports] {
            var seen: [AdvertisingReport] = []
            let error = HCIEvent.forEachAdvertisingReport(in: packet[...]) { seen.append($0) }
            #expect(error == nil)
            #expect(seen == (try HCIEvent(packet: packet[...]).advertisingReports))
        }
    }

    @Test func fastPathSlicesTheInputAndDecodesBeacons() {
        let report = AdvertisingReport.legacy(eventType: 3, addressType: .randomDevice, address: BDAddress(rawValue: 0xC0FFEE000001),
                                              rssi: -70, data: testBeacon.advertisingData[...])
        let packet = (try? HCIEvent.leAdvertisingReport([report, report]).encode().encode()) ?? []
        let input = [0xEE, 0xEE] + packet   // an offset start index must not confuse the decoder
        var beacons: [IBeacon] = []
        let error = HCIEvent.forEachAdvertisingReport(in: input[2...]) { report in
            #expect(report.data.startIndex > 2) // a slice of the input, not a copy
            if let beacon = IBeacon(advertisingData: report.data) { beacons.append(beacon) }
        }
        #expect(error == nil)
        #expect(beacons == [testBeacon, testBeacon])
    }

    @Test func fastPathSkipsOtherEventsAndRejectsMalformedOnesWhole() {
        var calls = 0
        #expect(HCIEvent.forEachAdvertisingReport(in: hexBytes("0E 04 01 03 0C 00")[...]) { _ in calls += 1 } == nil)
        #expect(HCIEvent.forEachAdvertisingReport(in: hexBytes("3E 04 14 40 00 01")[...]) { _ in calls += 1 } == nil)
        // First report fine, Num_Reports claims a second: nothing is delivered.
        var broken = Self.twoLegacyReports
        broken[3] = 3
        #expect(HCIEvent.forEachAdvertisingReport(in: broken[...]) { _ in calls += 1 }?.kind == .truncated)
        #expect(HCIEvent.forEachAdvertisingReport(in: Self.twoLegacyReports.dropLast()) { _ in calls += 1 }?.kind == .truncated)
        #expect(calls == 0)
    }

    @Test func encodingMatchesTheHandBuiltEvents() throws {
        for packet in [Self.twoLegacyReports, Self.twoExtendedReports, hexBytes("0E 04 01 03 0C 00"),
                       hexBytes("0F 04 02 01 06 04"), hexBytes("05 04 00 40 00 13"), hexBytes("3E 04 14 40 00 01")] {
            #expect(try HCIEvent(packet: packet[...]).encode().encode() == packet)
        }
    }

    @Test func encodingRejectsUnrepresentableValues() {
        let report = AdvertisingReport.legacy(eventType: 0, addressType: .publicDevice, address: .zero, rssi: 127, data: [])
        #expect(throws: EncodeError.self) { try HCIEvent.leAdvertisingReport([report]).encode() }
        let big = AdvertisingReport.legacy(eventType: 0, addressType: .publicDevice, address: .zero, rssi: 0,
                                           data: ArraySlice(repeating: 0, count: 200))
        #expect(throws: EncodeError.self) { try HCIEvent.leAdvertisingReport([big, big]).encode() }
    }

    @Test func addressesPrintMostSignificantFirst() {
        let address = BDAddress(wireBytes: [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0])
        #expect(address?.description == "C0:FF:EE:00:00:01")
        #expect(address?.wireBytes == [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0])
        #expect(BDAddress("c0:ff:ee:00:00:01") == address)
        #expect(BDAddress("C0-FF-EE-00-00-01") == address)
        #expect(BDAddress("C0:FF:EE:00:00") == nil)
        #expect(BDAddress("C0:FF:EE:00:00:0G") == nil)
        #expect(BDAddress(wireBytes: [1, 2, 3]) == nil)
    }
}
