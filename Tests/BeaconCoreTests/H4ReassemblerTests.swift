import PropertyBased
import Testing
@testable import BeaconCore

@Suite struct H4ReassemblerTests {
    /// One packet of every type, as H4 bytes.
    static let packets: [H4Packet] = {
        var out: [H4Packet] = [
            .command(.reset),
            .event(HCIEventPacket(unchecked: 0x0E, parameters: hexBytes("01 03 0C 00")[...])),
            .event(HCIEventPacket(unchecked: 0x3E, parameters: HCIEventTests.twoLegacyReports.dropFirst(2))),
            .event(HCIEventPacket(unchecked: 0x13, parameters: [])),
        ]
        if let acl = try? HCIDataPacket(type: .acl, handle: 0x040, flags: 0x2, payload: [0x04, 0x00, 0x04, 0x00, 0x0A, 0x0B, 0x0C, 0x0D]),
           let sco = try? HCIDataPacket(type: .sco, handle: 0x001, flags: 0x0, payload: [0x55, 0x66]),
           let iso = try? HCIDataPacket(type: .iso, handle: 0x060, flags: 0x3, payload: [1, 2, 3, 4, 5]) {
            out += [.data(acl), .data(sco), .data(iso)]
        }
        return out
    }()
    static let stream: [UInt8] = packets.flatMap { $0.encode() }

    static func packets(from results: [Result<H4Packet, DecodeError>]) -> [H4Packet] {
        results.compactMap { try? $0.get() }
    }

    static func errors(from results: [Result<H4Packet, DecodeError>]) -> [DecodeError] {
        results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
    }

    @Test func dataPacketHeaders() {
        // ACL handle 0x040 with packet-boundary flag 0b10: 40 20, length 0x0008.
        #expect(Self.packets[4].encode() == hexBytes("02 40 20 08 00 04 00 04 00 0A 0B 0C 0D"))
        #expect(Self.packets[5].encode() == hexBytes("03 01 00 02 55 66"))
        #expect(Self.packets[6].encode() == hexBytes("05 60 30 05 00 01 02 03 04 05"))
        #expect(Self.packets.count == 7)
    }

    @Test func wholeStreamInOneChunk() {
        var reassembler = H4Reassembler()
        let results = reassembler.push(Self.stream)
        #expect(Self.packets(from: results) == Self.packets)
        #expect(Self.errors(from: results).isEmpty)
        #expect(reassembler.bufferedByteCount == 0)
        #expect(reassembler.consumedByteCount == Self.stream.count)
        #expect(reassembler.finish() == nil)
    }

    @Test func everySplitPoint() {
        for split in 0...Self.stream.count {
            var reassembler = H4Reassembler()
            var results = reassembler.push(Self.stream[..<split])
            results += reassembler.push(Self.stream[split...])
            #expect(Self.packets(from: results) == Self.packets, "split at \(split)")
            #expect(Self.errors(from: results).isEmpty, "split at \(split)")
        }
    }

    @Test func everyPairOfSplitPoints() {
        let stream = Self.stream
        var failures = 0
        for first in 0...stream.count {
            for second in first...stream.count {
                var reassembler = H4Reassembler()
                let results = reassembler.push(stream[..<first]) + reassembler.push(stream[first..<second])
                    + reassembler.push(stream[second...])
                if Self.packets(from: results) != Self.packets || !Self.errors(from: results).isEmpty { failures += 1 }
            }
        }
        #expect(failures == 0)
    }

    @Test func byteByByteDeliversEachPacketWhenItsLastByteArrives() {
        var reassembler = H4Reassembler()
        var completedAt: [Int] = []
        for (i, byte) in Self.stream.enumerated() where !reassembler.push([byte]).isEmpty {
            completedAt.append(i + 1)
        }
        var end = 0
        let expected = Self.packets.map { end += $0.encode().count; return end }
        #expect(completedAt == expected)
    }

    @Test func unknownIndicatorIsReportedOnceAndSkipped() {
        let first = Self.packets[0].encode(), second = Self.packets[1].encode()
        var reassembler = H4Reassembler()
        let results = reassembler.push(first + [0x00, 0x07, 0xFF] + second + [0x42])
        #expect(Self.packets(from: results) == [Self.packets[0], Self.packets[1]])
        let errors = Self.errors(from: results)
        #expect(errors.map(\.kind) == [.unknownPacketType(0x00), .unknownPacketType(0x42)])
        #expect(errors.map(\.offset) == [first.count, first.count + 3 + second.count])
        #expect(reassembler.skippedByteCount == 4)
        // The garbage run ended at the last byte; the next packet is found again.
        let after = reassembler.push(Self.packets[2].encode())
        #expect(Self.packets(from: after) == [Self.packets[2]])
    }

    @Test func acceptedTypesNarrowWhatCountsAsAPacket() {
        var host = H4Reassembler(acceptedTypes: [.event, .acl, .iso])
        let results = host.push(Self.packets[0].encode() + Self.packets[1].encode())
        #expect(Self.errors(from: results).first?.kind == .unknownPacketType(0x01))
        // 01 03 0C 00 skipped as garbage until 04 starts the event. (Had SCO been accepted, the 03
        // would have started a bogus SCO packet: the resync limit H4Reassembler documents.)
        #expect(Self.packets(from: results) == [Self.packets[1]])
    }

    @Test func finishReportsAPartialPacket() {
        var reassembler = H4Reassembler()
        _ = reassembler.push(Self.packets[0].encode() + Self.packets[2].encode().prefix(10))
        let error = reassembler.finish()
        #expect(error?.kind == .truncated)
        #expect(error?.offset == 4)
        #expect(error?.reason.contains("10 of 28 bytes") == true)
        #expect(reassembler.bufferedByteCount == 0)
        _ = reassembler.push([0x04])
        #expect(reassembler.finish()?.reason.contains("1 of at least 3 bytes") == true)
    }

    @Test func randomChunkingYieldsTheSamePackets() async {
        await propertyCheck(count: 300, input: Gen.int(in: 1...40).array(of: 1...30)) { sizes in
            var reassembler = H4Reassembler()
            var results: [Result<H4Packet, DecodeError>] = []
            var start = 0
            for size in sizes + [Self.stream.count] where start < Self.stream.count {
                let end = min(start + size, Self.stream.count)
                results += reassembler.push(Self.stream[start..<end])
                start = end
            }
            #expect(Self.packets(from: results) == Self.packets)
            #expect(Self.errors(from: results).isEmpty)
        }
    }

    @Test func randomAndMutatedStreamsNeverTrapAndAccountForEveryByte() async {
        let gen = zip(Gen.uint8().array(of: 0...200), mutationSeeds, Gen.int(in: 1...64))
        await propertyCheck(count: 1000, input: gen) { noise, seeds, chunk in
            for input in [noise, mutate(Self.stream, with: seeds)] {
                var reassembler = H4Reassembler()
                var packetBytes = 0
                for start in stride(from: 0, to: input.count, by: chunk) {
                    for result in reassembler.push(input[start..<min(start + chunk, input.count)]) {
                        if case .success(let packet) = result { packetBytes += packet.encode().count }
                    }
                }
                #expect(reassembler.consumedByteCount + reassembler.bufferedByteCount == input.count)
                #expect(packetBytes + reassembler.skippedByteCount == reassembler.consumedByteCount)
                _ = reassembler.finish()
            }
        }
    }

    @Test func singlePacketDecodeErrors() {
        func error(_ bytes: [UInt8]) -> DecodeError? {
            do { _ = try H4Packet(bytes: bytes[...]); return nil } catch { return error }
        }
        #expect(error([])?.kind == .truncated)
        #expect(error([0x09, 0x00])?.kind == .unknownPacketType(0x09))
        #expect(error(hexBytes("04 0E"))?.kind == .truncated)
        #expect(error(hexBytes("04 0E 02 01"))?.kind == .truncated)
        #expect(error(hexBytes("04 0E 01 01 02"))?.kind == .trailingBytes)
        #expect(error(hexBytes("02 40 20 02 00 01"))?.offset == 5)
    }
}
