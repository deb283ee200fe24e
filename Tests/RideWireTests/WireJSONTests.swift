import Foundation
import PropertyBased
import RideWire
import Testing

/// The hand-written JSON of the hot wire types must be the bytes Foundation's encoder (the API's
/// dialect: sorted keys, slashes unescaped) writes, for any text, so a replay or a client never
/// sees a difference; dates are the one intended change (nearest millisecond, not truncated).
struct WireJSONTests {
    static let foundation = WireDates.makeEncoder()

    /// Characters that exercise every escape: controls, quote, backslash, slash, DEL, accents,
    /// a line separator, an emoji, CJK.
    static let alphabet: [Character] = (0..<0x20).map { Character(Unicode.Scalar($0)!) }
        + ["\"", "\\", "/", "\u{7F}", "a", "Z", "0", " ", "é", "\u{2028}", "😀", "車", "<", ">", "&", "'"]

    struct Values {
        var rng: Xoshiro
        mutating func text() -> String { String((0..<Int.random(in: 0...12, using: &rng)).map { _ in WireJSONTests.alphabet.randomElement(using: &rng)! }) }
        mutating func maybeText() -> String? { Bool.random(using: &rng) ? text() : nil }
        mutating func date() -> Date { Date(timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800_000, using: &rng)) / 1000) }
        mutating func maybeDate() -> Date? { Bool.random(using: &rng) ? date() : nil }
        mutating func maybeInt() -> Int? { Bool.random(using: &rng) ? Int.random(in: -1000...100_000, using: &rng) : nil }

        mutating func ride() -> Ride {
            var ride = Ride(id: text(), requestID: text(), passengerID: text(), driverID: text(),
                            passenger: RideParty(name: text(), language: maybeText()), driver: RideParty(name: text(), vehicle: maybeText()),
                            state: RideState.allCases.randomElement(using: &rng)!, createdAt: date(), stateChangedAt: date(),
                            key: maybeText(), identityPeriodSeconds: maybeInt(), code: maybeText())
            ride.pickup = maybeText()
            ride.dropoff = maybeText()
            ride.accessibilityNotes = maybeText()
            ride.etaMinutes = maybeInt()
            ride.etaGivenAt = maybeDate()
            ride.stuck = Bool.random(using: &rng) ? Bool.random(using: &rng) : nil
            return ride
        }

        mutating func request() -> RideRequest {
            RideRequest(id: text(), passengerID: maybeText(), passengerName: text(), pickup: text(), dropoff: text(),
                        accessibilityNotes: maybeText(), status: RideRequestStatus.allCases.randomElement(using: &rng)!,
                        createdAt: date(), rideID: maybeText(), code: maybeText())
        }

        mutating func event() -> RideEvent {
            RideEvent(id: Int64.random(in: 1...Int64.max, using: &rng), requestID: text(), rideID: maybeText(),
                      sequence: Int.random(in: 1...10_000, using: &rng),
                      kind: [.stateChanged, .locatorRequested, .touchObserved, .etaGiven, RideEventKind(rawValue: text())].randomElement(using: &rng)!,
                      state: RideState.allCases.randomElement(using: &rng)!, actorID: text(), at: date(), detail: maybeText())
        }
    }

    static func same(_ value: some Encodable & WireJSONEncodable) -> Bool {
        guard let expected = try? foundation.encode(value) else {
            Issue.record("Foundation could not encode \(value)")
            return false
        }
        let written = value.wireJSON
        if Array(expected) != written {
            Issue.record("wire JSON differs:\n  Foundation: \(String(decoding: expected, as: UTF8.self))\n  written:    \(String(decoding: written, as: UTF8.self))")
            return false
        }
        return true
    }

    @Test func everyHotTypeWritesFoundationsBytes() async throws {
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int.max)) { seed in
            var values = Values(rng: Xoshiro(seed: (UInt64(seed), 0x9E37_79B9, 7, 11)))
            let rides = (0..<Int.random(in: 0...3, using: &values.rng)).map { _ in values.ride() }
            let requests = (0..<Int.random(in: 0...3, using: &values.rng)).map { _ in values.request() }
            #expect(Self.same(values.ride()))
            #expect(Self.same(RideList(rides: rides, nextAfter: values.maybeText())))
            #expect(Self.same(values.request()))
            #expect(Self.same(RideRequestList(rideRequests: requests, nextAfter: values.maybeText())))
            #expect(Self.same(values.event()))
        }
    }

    @Test func writtenJSONDecodesToTheSameValue() async throws {
        await propertyCheck(count: 200, input: Gen.int(in: 0...Int.max)) { seed in
            var values = Values(rng: Xoshiro(seed: (UInt64(seed), 3, 5, 8)))
            let ride = values.ride()
            guard let decoded = try? WireDates.makeDecoder().decode(Ride.self, from: Data(ride.wireJSON)) else {
                Issue.record("the written ride does not decode: \(String(decoding: ride.wireJSON, as: UTF8.self))")
                return
            }
            #expect(decoded.id == ride.id && decoded.driver == ride.driver && decoded.pickup == ride.pickup)
            // Milliseconds survive; the parser's own arithmetic may differ in the last bits.
            #expect(abs(decoded.createdAt.timeIntervalSince(ride.createdAt)) < 0.0005)
            #expect(decoded.etaGivenAt.map { abs($0.timeIntervalSince(ride.etaGivenAt!)) < 0.0005 } ?? (ride.etaGivenAt == nil))
        }
    }

    /// Foundation's format style, on a time a little past the millisecond (where truncating and
    /// rounding agree), is the reference for the calendar arithmetic (from 1900: before 1582 it
    /// switches to the Julian calendar, and no ride is that old).
    @Test func datesMatchTheFormatStyleAndRoundToTheMillisecond() async throws {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        await propertyCheck(count: 2000, input: Gen.int(in: -2_208_988_800_000...253_402_300_799_999)) { milliseconds in
            let exact = Double(milliseconds) / 1000
            #expect(WireDates.format(Date(timeIntervalSince1970: exact)) == style.format(Date(timeIntervalSince1970: exact + 0.0002)))
        }
        // A stored `.123` is a binary fraction a hair below it; the format style wrote `.122`.
        #expect(WireDates.format(Date(timeIntervalSince1970: 1_764_000_000.123)) == "2025-11-24T16:00:00.123Z")
        #expect(WireDates.format(Date(timeIntervalSince1970: 1_764_000_000.9996)) == "2025-11-24T16:00:01.000Z")
        #expect(WireDates.format(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
        let parsed = try #require(WireDates.parse(WireDates.format(Date(timeIntervalSince1970: 1_764_000_000.123))))
        #expect(abs(parsed.timeIntervalSince1970 - 1_764_000_000.123) < 0.0005)
    }
}
