import Foundation
import PropertyBased
import Testing
@testable import BeaconCore

@Suite("AD structures and iBeacon frames")
struct FramesTests {
    // An advertisement captured from an iPhone acting as an iBeacon (UUID E2C56DB5-DFFB-48D2-B060-D0F5A71096E0,
    // major 1, minor 2, measured power -59).
    static let iPhoneFrame: [UInt8] = [
        0x02, 0x01, 0x06,
        0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
        0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
        0x00, 0x01, 0x00, 0x02, 0xC5,
    ]
    static let beacon = IBeacon(
        uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 1, minor: 2, measuredPower: -59)

    @Test func decodesAnIPhoneIBeacon() {
        #expect(IBeacon(advertisingData: Self.iPhoneFrame) == Self.beacon)
    }

    @Test func encodesTheSameBytesIOSEmits() {
        #expect(Self.beacon.advertisingData == Self.iPhoneFrame)
    }

    @Test func bigEndianMajorMinorAndSignedPower() {
        let b = IBeacon(uuid: UUID(), major: 0xABCD, minor: 0x0102, measuredPower: -128)
        let m = b.manufacturerData
        #expect(Array(m[20..<25]) == [0xAB, 0xCD, 0x01, 0x02, 0x80])
        #expect(IBeacon(manufacturerData: m[...])?.measuredPower == -128)
    }

    @Test func findsIBeaconAfterOtherStructures() {
        let name = ADStructure(type: ADStructure.completeLocalName, value: Array("car".utf8)[...])
        let data = ADStructure.encode([name, ADStructure(type: 0xFF, value: Self.beacon.manufacturerData[...])])
        #expect(IBeacon(advertisingData: data) == Self.beacon)
    }

    @Test func otherAppleFramesAreNotIBeacons() {
        // Apple "Nearby Info" (type 0x10) and an iBeacon type with a wrong length byte.
        let nearby: [UInt8] = [0x07, 0xFF, 0x4C, 0x00, 0x10, 0x02, 0x0B, 0x00]
        #expect(IBeacon(advertisingData: nearby) == nil)
        var wrongLength = Self.iPhoneFrame
        wrongLength[8] = 0x16
        #expect(IBeacon(advertisingData: wrongLength) == nil)
        var otherCompany = Self.iPhoneFrame
        otherCompany[5] = 0x59  // Nordic
        #expect(IBeacon(advertisingData: otherCompany) == nil)
    }

    @Test func parsesStructuresAndStopsAtPadding() throws {
        let padded = Self.iPhoneFrame + [0x00, 0x00]
        let structures = try ADStructure.parse(padded).get()
        #expect(structures.map(\.type) == [0x01, 0xFF])
        #expect(structures[1].value.count == 25)
    }

    @Test func overlongStructureIsAnErrorValue() {
        let truncated = Array(Self.iPhoneFrame.dropLast(3))
        guard case .failure(let error) = ADStructure.parse(truncated) else {
            Issue.record("a structure running past the end must be an error")
            return
        }
        #expect(error.offset == 3)
        #expect(IBeacon(advertisingData: truncated) == nil)
    }

    @Test func encodeParseRoundTrip() async {
        let structure = Gen.uint8().array(of: 0...29).map { ADStructure(type: 0xFF, value: $0[...]) }
        await propertyCheck(count: 300, input: structure.array(of: 0...4)) { structures in
            let bytes = ADStructure.encode(structures)
            #expect((try? ADStructure.parse(bytes).get()) == structures)
        }
    }

    @Test func iBeaconRoundTrip() async {
        await propertyCheck(count: 300, input: Gen.uint16(), Gen.uint16(), Gen.int8()) { major, minor, power in
            let b = IBeacon(uuid: UUID(), major: major, minor: minor, measuredPower: power)
            #expect(IBeacon(advertisingData: b.advertisingData) == b)
        }
    }

    @Test func randomBytesNeverTrap() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...62)) { bytes in
            let parsed = ADStructure.parse(bytes)
            if case .success(let structures) = parsed {
                #expect(structures.allSatisfy { $0.value.count <= 254 })
            }
            _ = IBeacon(advertisingData: bytes)
        }
    }

    @Test func mutatedFramesNeverTrap() async {
        let mutation = Gen.int(in: 0...(Self.iPhoneFrame.count - 1))
        await propertyCheck(count: 2000, input: mutation, Gen.uint8(), Gen.int(in: 0...3)) { index, byte, kind in
            var frame = Self.iPhoneFrame
            switch kind {
            case 0: frame[index] = byte
            case 1: frame.insert(byte, at: index)
            case 2: frame.remove(at: index)
            default: frame.removeSubrange(index...)
            }
            // Whatever survives the mutation, a decoded iBeacon must be read from bytes that are really there.
            if let decoded = IBeacon(advertisingData: frame) {
                let payload = decoded.manufacturerData
                let found = frame.indices.contains { i in frame[i...].starts(with: payload) }
                #expect(found)
            }
        }
    }
}
