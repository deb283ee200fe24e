import Foundation
import Testing
@testable import BeaconCore

@Suite struct AdvertisingDataReassemblerTests {
    static func piece(_ status: UInt16, _ data: [UInt8], address: UInt64 = 0xF00DCAFE1234, sid: UInt8? = 3,
                      rssi: Int8 = -66, scanResponse: Bool = false) -> AdvertisingReport {
        AdvertisingReport(eventType: status << 5 | (scanResponse ? 0x0A : 0), addressType: .randomDevice,
                          address: BDAddress(rawValue: address), advertisingSID: sid, rssi: rssi, data: data[...])
    }

    @Test func piecesAreJoinedPerAdvertiser() {
        var reassembler = AdvertisingDataReassembler()
        let whole = testBeacon.advertisingData
        #expect(reassembler.push(Self.piece(1, Array(whole[..<10]))) == .pending)
        // Another advertiser, and the same one's other SID, in between.
        let other = Self.piece(0, [1, 2, 3], address: 0x112233445566)
        #expect(reassembler.push(other) == .complete(other))
        #expect(reassembler.push(Self.piece(1, [9, 9], sid: 4)) == .pending)
        #expect(reassembler.push(Self.piece(1, Array(whole[10..<20]))) == .pending)
        guard case .complete(let joined) = reassembler.push(Self.piece(0, Array(whole[20...]), rssi: -67)) else {
            Issue.record("not completed")
            return
        }
        #expect(Array(joined.data) == whole)
        #expect(joined.rssi == -67)
        #expect(IBeacon(advertisingData: joined.data) == testBeacon)
        #expect(reassembler.pendingCount == 1) // SID 4 still waiting
    }

    @Test func scanResponsesAreSeparateFromTheAdvertisement() {
        var reassembler = AdvertisingDataReassembler()
        #expect(reassembler.push(Self.piece(1, [1])) == .pending)
        let response = Self.piece(0, [7], scanResponse: true)
        #expect(reassembler.push(response) == .complete(response))
        #expect(reassembler.pendingCount == 1)
    }

    @Test func truncatedAndOversizedAdvertisementsAreDropped() {
        var reassembler = AdvertisingDataReassembler(maximumDataLength: 5, maximumPendingAdvertisers: 1)
        #expect(reassembler.push(Self.piece(1, [1, 2])) == .pending)
        #expect(reassembler.push(Self.piece(2, [3])) == .dropped(.truncatedByController))
        #expect(reassembler.pendingCount == 0)
        #expect(reassembler.push(Self.piece(3, [3])) == .dropped(.truncatedByController))
        #expect(reassembler.push(Self.piece(1, [1, 2, 3])) == .pending)
        #expect(reassembler.push(Self.piece(0, [4, 5, 6])) == .dropped(.tooLong))
        #expect(reassembler.push(Self.piece(1, [1])) == .pending)
        #expect(reassembler.push(Self.piece(1, [1], address: 1)) == .dropped(.tooManyPending))
    }

    @Test func legacyReportsPassThrough() {
        var reassembler = AdvertisingDataReassembler()
        let legacy = AdvertisingReport.legacy(eventType: 3, addressType: .publicDevice, address: .zero, rssi: -1, data: [1])
        #expect(reassembler.push(legacy) == .complete(legacy))
    }
}

@Suite struct CaptureBeaconScannerTests {
    static func scan(_ bytes: [UInt8], uuid: UUID? = nil) throws -> ([BeaconSighting], CaptureBeaconScanner.Statistics) {
        var reader = try BtsnoopReader(bytes: bytes)
        var scanner = CaptureBeaconScanner(uuidFilter: uuid)
        var sightings: [BeaconSighting] = []
        while let record = try reader.next() { scanner.process(record) { sightings.append($0) } }
        return (sightings, scanner.statistics)
    }

    @Test func h4FixtureMatchesWhatTheGeneratorPutIn() throws {
        let (sightings, stats) = try Self.scan(try fixture("scan-h4.btsnoop"))
        #expect(stats.records == 32)
        #expect(stats.advertisingReports == 14)
        #expect(stats.sightings == 10 && sightings.count == 10)
        #expect(stats.beacons == 4)
        #expect(stats.undecodableEvents == 2)
        #expect(stats.droppedAdvertisements == 1)
        #expect(sightings.filter { $0.rssi == nil }.count == 2)
        // The fragmented advertisement is seen once, with its last piece's RSSI.
        let fragmented = sightings.filter { $0.beacon.major == 0x1234 }
        #expect(fragmented.map(\.rssi) == [nil, -67])
    }

    @Test func uuidFilterKeepsOneBeacon() throws {
        let uuid = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let (sightings, stats) = try Self.scan(try fixture("scan-h4.btsnoop"), uuid: uuid)
        #expect(sightings.count == 3)
        #expect(sightings.allSatisfy { $0.beacon.uuid == uuid && $0.address.description == "C0:FF:EE:00:00:01" })
        #expect(stats.beacons == 1)
    }

    @Test func h1FixtureYieldsLegacyAndExtendedSightings() throws {
        let (sightings, stats) = try Self.scan(try fixture("scan-h1.btsnoop"))
        #expect(sightings.map(\.rssi) == [-55, -90, -63, -64])
        #expect(stats.records == 5 && stats.undecodableEvents == 0)
    }
}
