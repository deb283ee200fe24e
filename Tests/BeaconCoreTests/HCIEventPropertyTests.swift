import PropertyBased
import Testing
@testable import BeaconCore

/// Decoders must return a value or an error for any bytes, never trap; and whatever decodes
/// must encode back to the same bytes.
@Suite struct HCIEventPropertyTests {
    static let validEvents: [[UInt8]] = [
        HCIEventTests.twoLegacyReports,
        HCIEventTests.twoExtendedReports,
        hexBytes("0E 04 01 03 0C 00"),
        hexBytes("0F 04 02 01 06 04"),
        hexBytes("05 04 00 40 00 13"),
        (try? HCIEvent.leAdvertisingReport([legacyBeaconReport, legacyBeaconReport]).encode().encode()) ?? [],
    ]

    static let legacyBeaconReport = AdvertisingReport.legacy(
        eventType: 3, addressType: .randomDevice, address: BDAddress(rawValue: 0xC0FFEE000001), rssi: -70,
        data: testBeacon.advertisingData[...])

    /// Checks the decoders' contract on one input and returns whether it decoded.
    @discardableResult
    static func checkDecoders(_ bytes: [UInt8]) -> Bool {
        let decoded: HCIEvent?
        do { decoded = try HCIEvent(packet: bytes[...]) } catch { decoded = nil }

        var fastReports: [AdvertisingReport] = []
        let fastError = HCIEvent.forEachAdvertisingReport(in: bytes[...]) { fastReports.append($0) }
        if let decoded {
            #expect(fastError == nil)
            #expect(fastReports == decoded.advertisingReports)
            // Anything that decodes re-encodes to exactly the input.
            #expect((try? decoded.encode().encode()) == bytes)
        } else {
            #expect(fastReports.isEmpty)
        }
        return decoded != nil
    }

    @Test func randomBytesNeverTrap() async {
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...300)) { bytes in
            Self.checkDecoders(bytes)
        }
    }

    @Test func randomAdvertisingEventsWithConsistentHeaders() async {
        // Random bodies behind a correct header reach the report walkers far more often than pure noise.
        let gen = zip(Gen.bool, Gen.uint8(in: 0...6), Gen.uint8().array(of: 0...253))
        await propertyCheck(count: 1000, input: gen) { extended, count, body in
            let parameters = [extended ? 0x0D : 0x02, count] + body
            Self.checkDecoders([0x3E, UInt8(parameters.count)] + parameters)
        }
    }

    @Test func mutatedValidEventsNeverTrap() async {
        let gen = zip(Gen.int(in: 0..<Self.validEvents.count), mutationSeeds)
        await propertyCheck(count: 1000, input: gen) { index, seeds in
            Self.checkDecoders(mutate(Self.validEvents[index], with: seeds))
        }
    }

    @Test func validEventsDecode() {
        for event in Self.validEvents {
            #expect(Self.checkDecoders(event))
        }
    }

    /// A report built from random seed bytes: every field exercised, wire-reserved values avoided.
    static func report(extended: Bool, seed: [UInt8], data: [UInt8]) -> AdvertisingReport {
        func byte(_ i: Int) -> UInt8 { seed[i % seed.count] }
        func optionalInt8(_ i: Int) -> Int8? {
            let value = Int8(bitPattern: byte(i))
            return value == 127 ? nil : value
        }
        let address = BDAddress(wireBytes: (0..<6).map { byte($0) }) ?? .zero
        guard extended else {
            return .legacy(eventType: byte(6), addressType: AddressType(rawValue: byte(7)), address: address,
                           rssi: optionalInt8(8), data: data[...])
        }
        let sid = byte(12)
        return AdvertisingReport(
            eventType: UInt16(byte(9)) | UInt16(byte(10)) << 8, addressType: AddressType(rawValue: byte(11)), address: address,
            primaryPHY: PHY(rawValue: byte(13)), secondaryPHY: PHY(rawValue: byte(14)),
            advertisingSID: sid == 0xFF ? nil : sid, txPower: optionalInt8(15), rssi: optionalInt8(16),
            periodicAdvertisingInterval: UInt16(byte(17)) << 8 | UInt16(byte(18)),
            directAddressType: AddressType(rawValue: byte(19)),
            directAddress: BDAddress(wireBytes: (20..<26).map { byte($0) }) ?? .zero,
            data: data[...])
    }

    @Test func reportsRoundTripThroughEncoding() async {
        let gen = zip(Gen.bool, Gen.uint8().array(of: 26).array(of: 1...4), Gen.uint8().array(of: 0...31).array(of: 4))
        await propertyCheck(count: 1000, input: gen) { extended, seeds, datas in
            let reports = seeds.enumerated().map { Self.report(extended: extended, seed: $1, data: datas[$0]) }
            let event: HCIEvent = extended ? .leExtendedAdvertisingReport(reports) : .leAdvertisingReport(reports)
            do {
                let packet = try event.encode()
                #expect(try HCIEvent(packet) == event)
                #expect(try HCIEvent(packet: packet.encode()[...]) == event)
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
