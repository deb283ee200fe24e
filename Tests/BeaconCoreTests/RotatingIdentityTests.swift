import Foundation
import TestSupport
import Testing
@testable import BeaconCore

@Suite("Rotating beacon identity")
struct RotatingIdentityTests {
    struct Vector: Decodable {
        var key_hex: String
        var label: String
        var unix_seconds: Double
        var period_s: Int
        var offset_s: Double
        var slot: UInt64
        var uuid: String
        var major: UInt16
        var minor: UInt16
    }

    static let vectors: [Vector] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/identity-vectors.json")
        struct File: Decodable { var vectors: [Vector] }
        guard let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else { return [] }
        return file.vectors
    }()

    static func bytes(hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { i in
            let start = hex.index(hex.startIndex, offsetBy: i)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    static let key = bytes(hex: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")

    @Test func publishedVectorsAreMet() throws {
        #expect(Self.vectors.count >= 8)
        #expect(Set(Self.vectors.map(\.label)) == ["ridebeacon/v1/driver", "ridebeacon/v1/passenger"])
        for v in Self.vectors {
            let identity = try RotatingIdentity(rideKey: Self.bytes(hex: v.key_hex), period: v.period_s)
            let side = try #require(BeaconSide.allCases.first { $0.label == v.label })
            #expect(identity.offset == v.offset_s)
            #expect(identity.slot(at: v.unix_seconds) == v.slot, "vector \(v.label) t=\(v.unix_seconds)")
            let got = identity.identity(of: side, slot: v.slot)
            #expect(got == BeaconIdentity(uuid: try #require(UUID(uuidString: v.uuid)), major: v.major, minor: v.minor),
                    "vector \(v.label) t=\(v.unix_seconds)")
        }
    }

    @Test func slotBoundaries() throws {
        let identity = try RotatingIdentity(rideKey: Self.key, period: 30)
        let first = identity.start(of: 1)
        #expect(identity.slot(at: first - 0.001) == 0)
        #expect(identity.slot(at: first) == 1)
        #expect(identity.slot(at: identity.start(of: 58_907_521)) == 58_907_521)
        #expect(identity.acceptedSlots(at: identity.start(of: 3) + 5) == 2...4)
        #expect(identity.acceptedSlots(at: 5) == 0...1)
        #expect(identity.identity(of: .driver, slot: 3) != identity.identity(of: .driver, slot: 4))
        #expect(identity.identity(of: .driver, slot: 3) != identity.identity(of: .passenger, slot: 3))
    }

    @Test("each ride's slots begin at its own offset from the wall clock, so two devices do not change identity together")
    func boundariesAreOffsetPerRide() throws {
        var offsets: Set<Double> = []
        for seed in 0..<50 {
            let identity = try RotatingIdentity(rideKey: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) }, period: 30)
            #expect((0..<30).contains(identity.offset))
            #expect(identity.start(of: 1) == 30 + identity.offset)
            offsets.insert(identity.offset)
        }
        // 50 draws from 30 000 ms: equal offsets for two rides would be a derivation that ignores the key.
        #expect(offsets.count >= 45, "only \(offsets.count) distinct offsets among 50 rides")
    }

    @Test func rejectsBadKeysAndPeriods() {
        #expect(throws: RotatingIdentity.Error.keyLength(31)) { try RotatingIdentity(rideKey: Array(Self.key.dropLast())) }
        #expect(throws: RotatingIdentity.Error.period(9)) { try RotatingIdentity(rideKey: Self.key, period: 9) }
        #expect(throws: RotatingIdentity.Error.period(901)) { try RotatingIdentity(rideKey: Self.key, period: 901) }
    }

    @Test func recordedBeaconIsUselessTwoSlotsLater() throws {
        let identity = try RotatingIdentity(rideKey: Self.key, period: 30)
        var matcher = IdentityMatcher(identity: identity, lookingFor: .driver)
        let recordedAt = 1_767_225_600.0
        let recorded = identity.identity(of: .driver, slot: identity.slot(at: recordedAt)).beacon(measuredPower: -59)
        #expect(matcher.match(recorded, at: recordedAt) == identity.slot(at: recordedAt))
        #expect(matcher.match(recorded, at: recordedAt + 30) != nil, "clock skew of one slot is tolerated")
        #expect(matcher.match(recorded, at: recordedAt + 60) == nil, "a replay two slots later is ignored")
    }

    @Test func recognisesOnlyItsRideAndSide() throws {
        let ours = try RotatingIdentity(rideKey: Self.key)
        let other = try RotatingIdentity(rideKey: [UInt8](repeating: 9, count: 32))
        var matcher = IdentityMatcher(identity: ours, lookingFor: .driver)
        let t = 1_767_225_610.0
        let slot = ours.slot(at: t)
        #expect(matcher.match(other.identity(of: .driver, slot: slot).beacon(measuredPower: -59), at: t) == nil)
        #expect(matcher.match(ours.identity(of: .passenger, slot: slot).beacon(measuredPower: -59), at: t) == nil)
        // Measured power is the transmitter's, not the ride's: any value matches.
        #expect(matcher.match(ours.identity(of: .driver, slot: slot).beacon(measuredPower: -70), at: t) == slot)
    }

    @Test func nextSlotIsKnownBeforeItStarts() throws {
        let identity = try RotatingIdentity(rideKey: Self.key, period: 30)
        var matcher = IdentityMatcher(identity: identity, lookingFor: .driver)
        let endOfSlot = 1_767_225_629.9
        let next = identity.slot(at: endOfSlot) + 1
        // A driver whose clock runs ahead has already rotated: still recognised, no gap.
        #expect(matcher.match(identity.identity(of: .driver, slot: next).beacon(measuredPower: -59), at: endOfSlot) == next)
        #expect(matcher.identities(at: endOfSlot).map(\.slot) == Array((next - 2)...(next + 1)))
    }
}

@Suite("Rotating identity collisions", .tags(.slow))
struct RotatingIdentityCollisionTests {
    /// 500 random ride keys × 1000 consecutive slots × both sides = a million identities, all
    /// different: a scanner can never mistake another ride (or another slot, or the other side)
    /// for the one it looks for. With 160 bits a collision would be a bug, not bad luck.
    @Test func aMillionIdentitiesOfDifferentRidesSlotsAndSidesNeverCollide() throws {
        var generator = SystemRandomNumberGenerator()
        var seen = Set<BeaconIdentity>(minimumCapacity: 1_000_000)
        let firstSlot: UInt64 = 58_907_520
        for _ in 0..<500 {
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let identity = try RotatingIdentity(rideKey: key)
            for slot in firstSlot..<(firstSlot + 1000) {
                for side in BeaconSide.allCases {
                    seen.insert(identity.identity(of: side, slot: slot))
                }
            }
        }
        #expect(seen.count == 1_000_000)
    }
}
