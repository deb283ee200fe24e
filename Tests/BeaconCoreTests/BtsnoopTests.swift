import PropertyBased
import Testing
@testable import BeaconCore

@Suite struct BtsnoopTests {
    /// 2024-05-01T12:00:00.250000Z.
    static let time: Int64 = 1_714_564_800_250_000

    static func sampleFile(_ datalink: BtsnoopDatalink) -> [UInt8] {
        var writer = BtsnoopWriter(datalink: datalink)
        writer.append(HCICommand.reset.packet, direction: .sent, unixMicroseconds: time)
        writer.append(.event(HCIEventPacket(unchecked: 0x0E, parameters: hexBytes("01 03 0C 00")[...])),
                      direction: .received, unixMicroseconds: time + 1)
        writer.append(.event(HCIEventPacket(unchecked: 0x3E, parameters: HCIEventTests.twoLegacyReports.dropFirst(2))),
                      direction: .received, unixMicroseconds: time + 2, cumulativeDrops: 3)
        writer.append(H4ReassemblerTests.packets[4], direction: .received, unixMicroseconds: time + 3)
        return writer.bytes
    }

    static func error(_ bytes: [UInt8]) -> BtsnoopError? {
        do { _ = try BtsnoopReader.records(in: bytes); return nil } catch { return error }
    }

    @Test func headerLayout() {
        let file = Self.sampleFile(.hciUART)
        #expect(Array(file.prefix(16)) == hexBytes("62 74 73 6E 6F 6F 70 00  00 00 00 01  00 00 03 EA"))
        // First record: original 4, included 4, flags 2 (sent command), drops 0, then the timestamp.
        #expect(Array(file[16..<32]) == hexBytes("00 00 00 04  00 00 00 04  00 00 00 02  00 00 00 00"))
        #expect(Array(file[40..<44]) == hexBytes("01 03 0C 00"))
    }

    @Test(arguments: BtsnoopDatalink.allCases)
    func roundTrip(datalink: BtsnoopDatalink) throws {
        let records = try BtsnoopReader.records(in: Self.sampleFile(datalink))
        #expect(records.map(\.number) == [1, 2, 3, 4])
        #expect(records.map(\.direction) == [.sent, .received, .received, .received])
        #expect(records.map(\.packetType) == [.command, .event, .event, .acl])
        #expect(records.map(\.unixMicroseconds) == [Self.time, Self.time + 1, Self.time + 2, Self.time + 3])
        #expect(records[0].unixSeconds == 1_714_564_800.25)
        #expect(records[2].cumulativeDrops == 3)
        #expect(records[0].fileOffset == 16)
        #expect(records[1].fileOffset == 16 + 24 + records[0].data.count)
        #expect(try records[0].packet() == .command(.reset))
        #expect(try records[3].packet() == H4ReassemblerTests.packets[4])
        let event = try records[2].packet()
        guard case .event(let packet) = event else { Issue.record("got \(event)"); return }
        #expect(try HCIEvent(packet).advertisingReports.count == 2)
        // H1 records carry no indicator byte.
        #expect(records[0].data.count == (datalink == .hciUART ? 4 : 3))
    }

    @Test func timestampsUseTheYearZeroEpoch() throws {
        var writer = BtsnoopWriter()
        writer.appendRecord(data: [0x01, 0x03, 0x0C, 0x00], flags: 2, timestamp: 0x00DC_DDB3_0F2F_8000)
        writer.appendRecord(data: [0x01, 0x03, 0x0C, 0x00], flags: 2, timestamp: 0x00DC_DDB3_0F2F_8000 + 1_714_564_800_000_000)
        let records = try BtsnoopReader.records(in: writer.bytes)
        #expect(records[0].unixSeconds == 0)
        #expect(records[1].unixSeconds == 1_714_564_800)
    }

    @Test func h1FlagsGiveThePacketType() throws {
        var writer = BtsnoopWriter(datalink: .hciUnencapsulated)
        writer.appendRecord(data: hexBytes("03 0C 00"), flags: 2, timestamp: 0)          // sent command
        writer.appendRecord(data: hexBytes("0E 04 01 03 0C 00"), flags: 3, timestamp: 0) // received event
        writer.appendRecord(data: hexBytes("40 20 00 00"), flags: 0, timestamp: 0)       // sent data
        writer.appendRecord(data: hexBytes("40 20 00 00"), flags: 1, timestamp: 0)       // received data
        let records = try BtsnoopReader.records(in: writer.bytes)
        #expect(records.map(\.packetType) == [.command, .event, .acl, .acl])
        #expect(try records[1].packet() == .event(HCIEventPacket(unchecked: 0x0E, parameters: hexBytes("01 03 0C 00")[...])))
    }

    @Test func fileHeaderErrors() {
        let good = Self.sampleFile(.hciUART)
        #expect(Self.error([]) == BtsnoopError(.truncatedFileHeader(bytes: 0), recordNumber: nil, offset: 0))
        #expect(Self.error(Array(good.prefix(10))) == BtsnoopError(.truncatedFileHeader(bytes: 10), recordNumber: nil, offset: 0))
        var magic = good
        magic[6] = UInt8(ascii: "q")
        #expect(Self.error(magic) == BtsnoopError(.badMagic, recordNumber: nil, offset: 0))
        #expect(Self.error(Array("PK\u{3}\u{4}".utf8)) == BtsnoopError(.badMagic, recordNumber: nil, offset: 0))
        var version = good
        version[11] = 2
        #expect(Self.error(version) == BtsnoopError(.unsupportedVersion(2), recordNumber: nil, offset: 8))
        var datalink = good
        datalink[15] = 0xEB // 1003
        #expect(Self.error(datalink) == BtsnoopError(.unsupportedDatalink(1003), recordNumber: nil, offset: 12))
        #expect(BtsnoopError(.badMagic, recordNumber: nil, offset: 0).description == "byte 0: not a btsnoop file (bad magic)")
    }

    @Test func recordErrorsNameTheRecordAndOffset() {
        let good = Self.sampleFile(.hciUART)
        let secondRecord = 16 + 24 + 4
        let third = secondRecord + 24 + 7
        // Record 2's header cut after 10 bytes.
        #expect(Self.error(Array(good.prefix(secondRecord + 10)))
                == BtsnoopError(.truncatedRecordHeader(bytesLeft: 10), recordNumber: 2, offset: secondRecord))
        // Record 3's data cut short.
        let cut = Self.error(Array(good.prefix(third + 24 + 12)))
        #expect(cut == BtsnoopError(.truncatedRecord(includedLength: 28, bytesLeft: 12), recordNumber: 3, offset: third))
        #expect(cut?.description == "record 3 at byte \(third): truncated record (included length 28, 12 bytes left)")
        // Included length larger than the original.
        var inflated = good
        inflated[secondRecord + 3] = 6 // original 6 < included 7
        #expect(Self.error(inflated)
                == BtsnoopError(.includedLengthExceedsOriginal(included: 7, original: 6), recordNumber: 2, offset: secondRecord))
    }

    @Test func readerKeepsGoodRecordsBeforeAnErrorAndRepeatsTheError() throws {
        var reader = try BtsnoopReader(bytes: Array(Self.sampleFile(.hciUART).dropLast()))
        var good = 0
        var firstError: BtsnoopError?
        do {
            while try reader.next() != nil { good += 1 }
        } catch {
            firstError = error
        }
        #expect(good == 3)
        #expect(firstError?.recordNumber == 4)
        let error = try #require(firstError)
        #expect(throws: error) { try reader.next() }
    }

    @Test func capturedLengthShorterThanOriginalIsNotAFileError() throws {
        var writer = BtsnoopWriter()
        writer.appendRecord(data: hexBytes("04 0E 04 01"), originalLength: 7, flags: 3, timestamp: 0)
        let record = try #require(try BtsnoopReader.records(in: writer.bytes).first)
        #expect(record.isTruncated)
        #expect(throws: DecodeError.self) { try record.packet() }
    }

    @Test func fixturesParse() throws {
        let h4 = try BtsnoopReader.records(in: try fixture("scan-h4.btsnoop"))
        #expect(h4.count == 32)
        #expect(h4.allSatisfy { $0.datalink == .hciUART })
        let h1 = try BtsnoopReader.records(in: try fixture("scan-h1.btsnoop"))
        #expect(h1.count == 5 && h1[0].datalink == .hciUnencapsulated)
        #expect(Self.error(try fixture("truncated-record.btsnoop"))?.recordNumber == 3)
        #expect(Self.error(try fixture("bad-magic.btsnoop"))?.reason == .badMagic)
    }

    @Test func mutatedFilesNeverTrap() async throws {
        let files = [Self.sampleFile(.hciUART), Self.sampleFile(.hciUnencapsulated), try fixture("scan-h4.btsnoop")]
        await propertyCheck(count: 1000, input: zip(Gen.int(in: 0..<files.count), mutationSeeds)) { index, seeds in
            let bytes = mutate(files[index], with: seeds)
            guard var reader = try? BtsnoopReader(bytes: bytes) else { return }
            var accounted = Btsnoop.fileHeaderLength
            var scanner = CaptureBeaconScanner()
            do throws(BtsnoopError) {
                while let record = try reader.next() {
                    #expect(record.fileOffset == accounted)
                    accounted += Btsnoop.recordHeaderLength + record.data.count
                    _ = try? record.packet()
                    scanner.process(record) { _ in }
                }
                #expect(accounted == bytes.count)
            } catch {
                #expect(error.offset == accounted)
                #expect(error.recordNumber == reader.recordCount + 1)
            }
        }
    }
}
