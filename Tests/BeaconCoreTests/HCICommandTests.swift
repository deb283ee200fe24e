import PropertyBased
import Testing
@testable import BeaconCore

// Expected bytes are written out from the Core Spec 5.4 Vol 4 Part E §7 parameter tables
// (opcode little-endian, length, parameters), not produced by the encoder under test.
@Suite struct HCICommandTests {
    @Test func opcodeSplitsIntoOGFAndOCF() {
        #expect(HCIOpcode(ogf: 0x08, ocf: 0x000C).rawValue == 0x200C)
        #expect(HCIOpcode.reset.rawValue == 0x0C03)
        #expect(HCIOpcode.readLocalVersionInformation.rawValue == 0x1001)
        #expect(HCIOpcode(rawValue: 0x2042).ogf == 0x08)
        #expect(HCIOpcode(rawValue: 0x2042).ocf == 0x042)
        #expect(HCIOpcode.leSetScanEnable.description == "LE_Set_Scan_Enable")
        #expect(HCIOpcode(rawValue: 0xFC01).description == "0xFC01")
    }

    @Test func parameterlessCommands() {
        #expect(HCICommand.reset.encode() == hexBytes("03 0C 00"))
        #expect(HCICommand.reset.packet.encode() == hexBytes("01 03 0C 00"))
        #expect(HCICommand.readLocalVersionInformation.encode() == hexBytes("01 10 00"))
        #expect(HCICommand.readLocalSupportedCommands.encode() == hexBytes("02 10 00"))
        #expect(HCICommand.leReadLocalSupportedFeatures.encode() == hexBytes("03 20 00"))
    }

    @Test func eventMasksAreLittleEndian() {
        let mask = HCIEventMask.defaultEvents | HCIEventMask.leMeta
        #expect(mask == 0x2000_1FFF_FFFF_FFFF)
        #expect(HCICommand.setEventMask(mask).encode() == hexBytes("01 0C 08 FF FF FF FF FF 1F 00 20"))
        let le = HCIEventMask.leDefault | HCIEventMask.leExtendedAdvertisingReport
        #expect(HCICommand.leSetEventMask(le).encode() == hexBytes("01 20 08 1F 10 00 00 00 00 00 00"))
    }

    @Test func legacyAdvertisingParameters() throws {
        let p = LEAdvertisingParameters(intervalMin: 0x00A0, intervalMax: 0x00F0, type: .advNonconnInd,
                                        ownAddressType: .randomDevice, peerAddressType: .publicDevice,
                                        peerAddress: BDAddress("00:11:22:33:44:55")!, channelMap: .all,
                                        filterPolicy: .acceptAll)
        #expect(try HCICommand.leSetAdvertisingParameters(p).encode()
                == hexBytes("06 20 0F  A0 00  F0 00  03  01  00  55 44 33 22 11 00  07  00"))
    }

    @Test func legacyAdvertisingDataIsPaddedTo31Bytes() throws {
        let command = try HCICommand.leSetAdvertisingData([0xAA, 0xBB, 0xCC])
        #expect(command.encode() == hexBytes("08 20 20 03 AA BB CC") + [UInt8](repeating: 0, count: 28))
        let beacon = try HCICommand.leSetAdvertisingData(testBeacon.advertisingData)
        #expect(beacon.parameters.count == 32)
        #expect(beacon.parameters.first == 30)
        #expect(Array(beacon.parameters.dropFirst().prefix(30)) == testBeacon.advertisingData)
        #expect(try HCICommand.leSetScanResponseData([]).encode() == hexBytes("09 20 20 00") + [UInt8](repeating: 0, count: 31))
    }

    @Test func legacyAdvertisingDataOver31BytesIsAnError() {
        #expect(throws: EncodeError.tooLong(field: "advertising data", count: 32, maximum: 31)) {
            try HCICommand.leSetAdvertisingData([UInt8](repeating: 1, count: 32))
        }
    }

    @Test func enablesAndLegacyScanning() throws {
        #expect(HCICommand.leSetAdvertisingEnable(true).encode() == hexBytes("0A 20 01 01"))
        #expect(HCICommand.leSetAdvertisingEnable(false).encode() == hexBytes("0A 20 01 00"))
        let scan = LEScanParameters(type: .active, interval: 0x0060, window: 0x0030, ownAddressType: .randomDevice,
                                    filterPolicy: .basicUnfiltered)
        #expect(try HCICommand.leSetScanParameters(scan).encode() == hexBytes("0B 20 07  01  60 00  30 00  01  00"))
        #expect(HCICommand.leSetScanEnable(true, filterDuplicates: false).encode() == hexBytes("0C 20 02 01 00"))
        #expect(HCICommand.leSetScanEnable(true, filterDuplicates: true).encode() == hexBytes("0C 20 02 01 01"))
    }

    @Test func legacyRangesAreChecked() {
        #expect(throws: EncodeError.outOfRange(field: "advertising interval min", value: 0x1F, allowed: 0x20...0x4000)) {
            try HCICommand.leSetAdvertisingParameters(LEAdvertisingParameters(intervalMin: 0x1F))
        }
        #expect(throws: EncodeError.self) {
            try HCICommand.leSetAdvertisingParameters(LEAdvertisingParameters(intervalMin: 0x0100, intervalMax: 0x00A0))
        }
        #expect(throws: EncodeError.outOfRange(field: "advertising channel map", value: 0, allowed: 1...7)) {
            try HCICommand.leSetAdvertisingParameters(LEAdvertisingParameters(channelMap: []))
        }
        #expect(throws: EncodeError.self) {
            try HCICommand.leSetScanParameters(LEScanParameters(interval: 0x0010, window: 0x0020))
        }
        #expect(throws: EncodeError.self) { try HCICommand.leSetScanParameters(LEScanParameters(interval: 0x4001)) }
    }

    @Test func extendedAdvertisingParameters() throws {
        let p = LEExtendedAdvertisingParameters(handle: 1, eventProperties: [.legacy], primaryIntervalMin: 0xA0,
                                                primaryIntervalMax: 0xF0, ownAddressType: .randomDevice, sid: 2)
        #expect(try HCICommand.leSetExtendedAdvertisingParameters(p).encode() == hexBytes("""
            36 20 19  01  10 00  A0 00 00  F0 00 00  07  01  00  00 00 00 00 00 00  00  7F  01  00  01  02  00
            """))
        var extended = p
        extended.eventProperties = [.includeTxPower]
        extended.txPower = -4
        extended.secondaryPHY = .le2M
        extended.primaryIntervalMax = 0x01_0000
        let bytes = try HCICommand.leSetExtendedAdvertisingParameters(extended).encode()
        #expect(bytes[4...5] == [0x40, 0x00])
        #expect(bytes[9...11] == [0x00, 0x00, 0x01])
        #expect(bytes[22] == 0xFC)
        #expect(bytes[25] == 0x02)
    }

    @Test func extendedAdvertisingPropertiesAreChecked() {
        for bad: AdvertisingEventProperties in [[.legacy, .connectable], [.connectable, .scannable],
                                                [.highDutyCycleDirected, .directed, .connectable],
                                                AdvertisingEventProperties(rawValue: 0x80)] {
            #expect(throws: EncodeError.self) {
                try HCICommand.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(eventProperties: bad))
            }
        }
        for good: AdvertisingEventProperties in [[.legacy], [.legacy, .connectable, .scannable], [.legacy, .scannable],
                                                 [.connectable], [.scannable], [], [.anonymous, .includeTxPower]] {
            #expect(throws: Never.self) {
                try HCICommand.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters(eventProperties: good))
            }
        }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedAdvertisingParameters(.init(handle: 0xF0)) }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedAdvertisingParameters(.init(primaryIntervalMin: 0x1F)) }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedAdvertisingParameters(.init(txPower: 21)) }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedAdvertisingParameters(.init(primaryPHY: .le2M)) }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedAdvertisingParameters(.init(secondaryPHY: .none)) }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedAdvertisingParameters(.init(sid: 16)) }
    }

    @Test func extendedAdvertisingData() throws {
        let command = try HCICommand.leSetExtendedAdvertisingData(handle: 1, operation: .complete,
                                                                  fragmentPreference: .shouldNotFragment, data: [0xAA, 0xBB])
        #expect(command.encode() == hexBytes("37 20 06  01  03  01  02  AA BB"))
        #expect(throws: EncodeError.tooLong(field: "extended advertising data fragment", count: 252, maximum: 251)) {
            try HCICommand.leSetExtendedAdvertisingData(handle: 0, data: [UInt8](repeating: 0, count: 252))
        }
        #expect(throws: EncodeError.self) {
            try HCICommand.leSetExtendedAdvertisingData(handle: 0, operation: .unchangedData, data: [1])
        }
    }

    @Test func longExtendedAdvertisingDataIsFragmented() throws {
        let data = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        let commands = try HCICommand.leSetExtendedAdvertisingDataCommands(handle: 2, data: data)
        #expect(commands.map { $0.parameters[$0.parameters.startIndex + 1] } == [1, 0, 2]) // first, intermediate, last
        #expect(commands.map { Int($0.parameters[$0.parameters.startIndex + 3]) } == [251, 251, 98])
        #expect(commands.flatMap { $0.parameters.dropFirst(4) } == data)
        let single = try HCICommand.leSetExtendedAdvertisingDataCommands(handle: 2, data: [1, 2, 3])
        #expect(single.count == 1 && single[0].parameters[single[0].parameters.startIndex + 1] == 3)
        #expect(throws: EncodeError.self) {
            try HCICommand.leSetExtendedAdvertisingDataCommands(handle: 2, data: [UInt8](repeating: 0, count: 1651))
        }
    }

    @Test func extendedAdvertisingEnableInterleavesSets() throws {
        // Same bytes as Bumble's hci_test for this command.
        let sets = [ExtendedAdvertisingSet(handle: 1, duration: 5, maxExtendedAdvertisingEvents: 8),
                    ExtendedAdvertisingSet(handle: 2, duration: 6, maxExtendedAdvertisingEvents: 9),
                    ExtendedAdvertisingSet(handle: 3, duration: 7, maxExtendedAdvertisingEvents: 10)]
        #expect(try HCICommand.leSetExtendedAdvertisingEnable(true, sets: sets).packet.encode()
                == hexBytes("01 39 20 0E 01 03 01 05 00 08 02 06 00 09 03 07 00 0A"))
        #expect(try HCICommand.leSetExtendedAdvertisingEnable(false, sets: []).encode() == hexBytes("39 20 02 00 00"))
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedAdvertisingEnable(true, sets: []) }
        #expect(throws: EncodeError.self) {
            try HCICommand.leSetExtendedAdvertisingEnable(true, sets: Array(repeating: .init(handle: 0), count: 64))
        }
    }

    @Test func extendedScanParametersPerPHY() throws {
        let p = LEExtendedScanParameters(ownAddressType: .randomDevice, filterPolicy: .basicFiltered,
                                         le1M: PHYScanParameters(type: .active, interval: 0x0010, window: 0x0010),
                                         leCoded: PHYScanParameters(type: .passive, interval: 0x0030, window: 0x0020))
        #expect(try HCICommand.leSetExtendedScanParameters(p).encode()
                == hexBytes("41 20 0D  01  01  05  01 10 00 10 00  00 30 00 20 00"))
        let codedOnly = LEExtendedScanParameters(le1M: nil, leCoded: PHYScanParameters())
        #expect(try HCICommand.leSetExtendedScanParameters(codedOnly).encode() == hexBytes("41 20 08 00 00 04 00 10 00 10 00"))
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedScanParameters(.init(le1M: nil)) }
        #expect(throws: EncodeError.self) {
            try HCICommand.leSetExtendedScanParameters(.init(le1M: .init(interval: 0x10, window: 0x11)))
        }
    }

    @Test func extendedScanEnable() throws {
        #expect(try HCICommand.leSetExtendedScanEnable(true, filterDuplicates: .enabled).encode()
                == hexBytes("42 20 06 01 01 00 00 00 00"))
        #expect(try HCICommand.leSetExtendedScanEnable(true, filterDuplicates: .enabledResetEachPeriod, duration: 0x01F4, period: 0x0010).encode()
                == hexBytes("42 20 06 01 02 F4 01 10 00"))
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedScanEnable(true, period: 1) }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedScanEnable(true, duration: 128, period: 1) }
        #expect(throws: EncodeError.self) { try HCICommand.leSetExtendedScanEnable(true, filterDuplicates: .enabledResetEachPeriod) }
        #expect(try HCICommand.leSetExtendedScanEnable(false).encode() == hexBytes("42 20 06 00 00 00 00 00 00"))
    }

    @Test func genericCommandsAndTheirLengthLimit() throws {
        let vendor = try HCICommand(opcode: HCIOpcode(ogf: 0x3F, ocf: 0x001), parameters: [1, 2])
        #expect(vendor.encode() == hexBytes("01 FC 02 01 02"))
        #expect(throws: EncodeError.self) { try HCICommand(opcode: .reset, parameters: [UInt8](repeating: 0, count: 256)) }
    }

    @Test func encodedCommandsDecodeBackFromH4() throws {
        let commands: [HCICommand] = [
            .reset, .setEventMask(0x1234), try .leSetAdvertisingData(testBeacon.advertisingData),
            try .leSetExtendedScanParameters(LEExtendedScanParameters()),
        ]
        for command in commands {
            #expect(try H4Packet(bytes: command.packet.encode()[...]) == .command(command))
        }
    }

    // MARK: private addresses and transmit power (issue 36, issue 34)

    @Test func randomAddressCommands() throws {
        let address = BDAddress("3F:12:34:56:78:9A")!
        #expect(HCICommand.leSetRandomAddress(address).encode() == hexBytes("05 20 06  9A 78 56 34 12 3F"))
        #expect(try HCICommand.leSetAdvertisingSetRandomAddress(handle: 0, address: address).encode()
                == hexBytes("35 20 07  00  9A 78 56 34 12 3F"))
        #expect(throws: EncodeError.self) { try HCICommand.leSetAdvertisingSetRandomAddress(handle: 0xF0, address: address) }
        #expect(HCIOpcode.leSetRandomAddress.description == "LE_Set_Random_Address")
        #expect(HCIOpcode.leSetAdvertisingSetRandomAddress.description == "LE_Set_Advertising_Set_Random_Address")
    }

    @Test func transmitPowerCommandsAndWhatTheyReport() throws {
        #expect(HCICommand.leReadTransmitPower.encode() == hexBytes("4B 20 00"))
        #expect(HCICommand.leReadAdvertisingPhysicalChannelTxPower.encode() == hexBytes("07 20 00"))
        // Own_Address_Type is parameter byte 10 and Advertising_TX_Power byte 19: random, +20 dBm asked
        // for; 0x7F without a preference.
        let asked = LEExtendedAdvertisingParameters(ownAddressType: .randomDevice, txPower: 20)
        let bytes = try HCICommand.leSetExtendedAdvertisingParameters(asked).encode()
        #expect(bytes[3 + 10] == 0x01 && bytes[3 + 19] == 0x14)
        #expect(try HCICommand.leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters()).encode()[3 + 19] == 0x7F)
        // Return parameters, status first: Selected_TX_Power −3 dBm; Min −20, Max +9; the legacy level +4.
        #expect(HCIReturnParameters.selectedTxPower(hexBytes("00 FD")) == -3)
        #expect(HCIReturnParameters.transmitPowerRange(hexBytes("00 EC 09")).map { $0 == (-20, 9) } == true)
        #expect(HCIReturnParameters.advertisingChannelTxPower(hexBytes("00 04")) == 4)
        #expect(HCIReturnParameters.hciVersion(hexBytes("00 09 00 00 09 FF FF 00 00")) == 0x09)
        // A failed status or a short answer reports nothing.
        #expect(HCIReturnParameters.selectedTxPower(hexBytes("01 FD")) == nil)
        #expect(HCIReturnParameters.transmitPowerRange(hexBytes("00 EC")) == nil)
        #expect(HCIReturnParameters.hciVersion([]) == nil)
    }

    @Test("return-parameter readers never trap, whatever the controller sends")
    func returnParametersNeverTrap() async {
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...12)) { bytes in
            let power = HCIReturnParameters.selectedTxPower(bytes)
            #expect(power == (bytes.count >= 2 && bytes[0] == 0 ? Int8(bitPattern: bytes[1]) : nil))
            _ = HCIReturnParameters.transmitPowerRange(bytes)
            _ = HCIReturnParameters.advertisingChannelTxPower(bytes)
            _ = HCIReturnParameters.hciVersion(bytes)
        }
    }

    @Test("a non-resolvable private address: top two bits 00, the other 46 neither all 0 nor all 1, whatever the draw")
    func nonResolvablePrivateAddresses() async {
        struct Replay: RandomNumberGenerator {
            var draws: [UInt64]
            mutating func next() -> UInt64 { draws.isEmpty ? 0x1234_5678_9ABC : draws.removeFirst() }
        }
        await propertyCheck(count: 1000, input: Gen.uint64().array(of: 1...3)) { draws in
            var generator = Replay(draws: draws)
            let address = BDAddress.nonResolvablePrivate(using: &generator)
            #expect(address.rawValue >> 46 == 0)
            #expect(address.isNonResolvablePrivate)
        }
        // All-zero and all-one random parts are drawn again.
        var edges = Replay(draws: [0, (1 << 46) - 1, UInt64.max, 0xC000_0000_0000])
        #expect(BDAddress.nonResolvablePrivate(using: &edges) == BDAddress(rawValue: 0x1234_5678_9ABC))
        #expect(!BDAddress(rawValue: 0).isNonResolvablePrivate)
        #expect(!BDAddress("C0:FF:EE:00:00:01")!.isNonResolvablePrivate)   // static random: top bits 11
        let fresh = (0..<100).map { _ in BDAddress.nonResolvablePrivate() }
        #expect(Set(fresh).count == 100 && fresh.allSatisfy(\.isNonResolvablePrivate))
    }

    @Test("the frame's measured power is the 1 m level of the power the controller reported")
    func measuredPowerFollowsTransmitPower() {
        #expect(MeasuredPower.atOneMetre(transmitPower: 0) == -60)
        #expect(MeasuredPower.atOneMetre(transmitPower: 9) == -51)
        #expect(MeasuredPower.atOneMetre(transmitPower: -15) == -75)
        #expect(MeasuredPower.atOneMetre(transmitPower: -127) == -128)
    }
}
