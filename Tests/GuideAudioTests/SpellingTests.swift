import GuideAudio
import Testing

/// Ride codes and plates are read one character at a time (issue 26): an English voice reads a
/// lone "A" as the word "a", so inside a spelled run it is passed as the letter's phonemes.
@Suite struct SpellingTests {
    @Test func aLoneAInsideASpelledRunIsTheLetter() {
        #expect(EspeakSpeech.letterByLetter("Ride A Y 4 W.", voice: "en") == "Ride [[eI]] Y 4 W.")
        #expect(EspeakSpeech.letterByLetter("plate A B 1 2 C D E", voice: "en-us") == "plate [[eI]] B 1 2 C D E")
        #expect(EspeakSpeech.letterByLetter("Ride K X 7 A.", voice: "en") == "Ride K X 7 [[eI]].")
        // A word "A" in a sentence, lower-case "a", and other languages are left alone.
        #expect(EspeakSpeech.letterByLetter("A driver is coming.", voice: "en") == "A driver is coming.")
        #expect(EspeakSpeech.letterByLetter("Ride a 4 W.", voice: "en") == "Ride a 4 W.")
        #expect(EspeakSpeech.letterByLetter("Viaje A Y 4 W.", voice: "es") == "Viaje A Y 4 W.")
    }

    @Test func theLetterSoundsLongerThanTheWord() throws {
        let engine = try EspeakSpeech.shared()
        // "eI" (the letter) is a diphthong, the word "a" a short schwa: the spelled run is longer.
        let letter = try engine.synthesize("K A 4", voice: .standard)
        let word = try engine.synthesize("K a 4", voice: .standard)
        #expect(letter.samples.count > word.samples.count)
    }
}
