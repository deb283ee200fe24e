import BeaconCore
import Foundation
import Testing

/// The ride word (issue 22): both devices and the server derive the same two words from the ride
/// key, from a fixed list of short, distinct words; what is heard is compared without case or
/// punctuation.
@Suite("Ride word")
struct RideWordTests {
    @Test func theListIsSixtyFourShortDistinctWords() {
        #expect(RideWord.words.count == 64)
        #expect(Set(RideWord.words).count == 64)
        #expect(RideWord.words.allSatisfy { (4...7).contains($0.count) && $0.allSatisfy { $0.isLetter && $0.isLowercase } })
    }

    @Test func theWordsAreAFunctionOfTheKeyTwoDifferentWords() throws {
        let key = [UInt8](repeating: 42, count: 32)
        #expect(RideWord.phrase(rideKey: key) == RideWord.phrase(rideKey: Data(key)))
        // Published vectors, computed outside Swift (Python's hmac): HMAC-SHA256(key, "ridebeacon/v1/word").
        #expect(RideWord.phrase(rideKey: key) == "kettle ginger")
        #expect(RideWord.phrase(rideKey: [UInt8](repeating: 3, count: 32)) == "sugar tomato")
        #expect(RideWord.phrase(rideKey: (0..<32).map { UInt8($0) }) == "pillow biscuit")
        var seen = Set<String>()
        for seed in 0..<400 {
            let key = [UInt8](repeating: 9, count: 30) + [UInt8(seed & 0xff), UInt8(seed >> 8)]
            let (a, b) = RideWord.words(rideKey: key)
            #expect(a != b)
            seen.insert(RideWord.phrase(rideKey: key))
        }
        #expect(seen.count > 350, "different keys, different words: \(seen.count) of 400")
    }

    @Test func matchingIgnoresCaseAndPunctuationButNotTheWords() {
        let key = [UInt8](repeating: 3, count: 32)
        let (a, b) = RideWord.words(rideKey: key)
        #expect(RideWord.matches("\(a.capitalized), \(b.uppercased())!", rideKey: key))
        #expect(RideWord.matches("  \(a)   \(b) ", rideKey: key))
        #expect(!RideWord.matches("\(b) \(a)", rideKey: key), "the order is part of it")
        #expect(!RideWord.matches(a, rideKey: key))
        #expect(!RideWord.matches("", rideKey: key))
    }
}
