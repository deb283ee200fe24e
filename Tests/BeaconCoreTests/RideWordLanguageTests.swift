import BeaconCore
import Foundation
import Testing

/// Issue 37 (point 12): the ride word in the passenger's language. Spanish and French lists of
/// 64 words, slot for slot with the English one, each word told apart from the others even
/// without accents (a keyboard or a recogniser without them); a phrase typed without accents
/// still matches; the two slots come from the key alone, so every device picks the same ones.
@Suite("Ride word in Spanish and French")
struct RideWordLanguageTests {
    static let lists: [(String, [String])] = [("es", RideWord.spanishWords), ("fr", RideWord.frenchWords)]

    @Test("64 words each, distinct once accents and case are dropped, one word each", arguments: ["es", "fr"])
    func sixtyFourDistinctWords(language: String) {
        let list = RideWord.words(language: language)
        #expect(list.count == 64)
        let folded = list.map(RideWord.normalized)
        #expect(Set(folded).count == 64, "two words differ only by an accent: \(folded)")
        #expect(folded.allSatisfy { !$0.isEmpty && !$0.contains(" ") }, "one word each")
        #expect(list.allSatisfy { $0.allSatisfy { $0.isLetter && $0.isLowercase } })
        #expect(list != RideWord.words, "its own words, not the English ones")
    }

    @Test func eachLanguageItsList() {
        #expect(RideWord.words(language: "es-MX") == RideWord.spanishWords)
        #expect(RideWord.words(language: "fr_CA") == RideWord.frenchWords)
        #expect(RideWord.words(language: "de") == RideWord.words, "a language without a list says English")
    }

    @Test("the same slots in every language: río vela is river candle")
    func sameSlotsInEveryLanguage() throws {
        let key = [UInt8](repeating: 42, count: 32)
        let (first, second) = RideWord.slots(rideKey: key)
        #expect(RideWord.phrase(rideKey: key) == "\(RideWord.words[first]) \(RideWord.words[second])")
        #expect(RideWord.phrase(rideKey: key, language: "es") == "\(RideWord.spanishWords[first]) \(RideWord.spanishWords[second])")
        #expect(RideWord.phrase(rideKey: key, language: "fr") == "\(RideWord.frenchWords[first]) \(RideWord.frenchWords[second])")
        // The published English vector stays what it was: older devices still agree.
        #expect(RideWord.phrase(rideKey: key) == "kettle ginger")
        #expect(RideWord.phrase(rideKey: key, language: "es") == "tetera jengibre")
        #expect(RideWord.phrase(rideKey: key, language: "fr") == "bouilloire gingembre")
    }

    @Test("typed or heard without accents, in any case, the phrase still matches", arguments: ["es", "fr"])
    func accentInsensitiveMatches(language: String) {
        var checked = 0
        for seed in 0..<200 {
            let key = [UInt8](repeating: 5, count: 30) + [UInt8(seed & 0xff), UInt8(seed >> 8)]
            let phrase = RideWord.phrase(rideKey: key, language: language)
            let bare = phrase.folding(options: .diacriticInsensitive, locale: nil)
            #expect(RideWord.matches(phrase, rideKey: key))
            #expect(RideWord.matches(bare.uppercased(), rideKey: key), "\(bare)")
            if bare != phrase { checked += 1 }
            // Another key's phrase does not match this one.
            let other = [UInt8](repeating: 6, count: 30) + [UInt8(seed & 0xff), UInt8(seed >> 8)]
            if RideWord.slots(rideKey: other) != RideWord.slots(rideKey: key) {
                #expect(!RideWord.matches(RideWord.phrase(rideKey: other, language: language), rideKey: key))
            }
        }
        #expect(checked > 10, "the keys tried reached accented words: \(checked)")
        #expect(RideWord.normalized("Río  VELA") == "rio vela")
        #expect(RideWord.normalized("Île, Été!") == "ile ete")
    }
}
