import Testing
@testable import GuideAudio

@Suite struct SpeechTests {
    @Test func speechIsAudibleAndLongerForLongerText() throws {
        let engine = try espeak()
        let short = try engine.synthesize("Closer.", voice: .standard)
        let long = try engine.synthesize("About ten meters. Keep walking, you are getting closer.", voice: .standard)
        #expect(PCMAnalysis.rms(short.samples) > 0.02)
        #expect(PCMAnalysis.peak(long.samples) > 0.2)
        #expect(long.samples.count > short.samples.count * 3)
        #expect(short.fallback == nil && short.voice == "en")
        #expect(short.synthesisSeconds > 0)
    }

    @Test func fasterRateIsShorter() throws {
        let engine = try espeak()
        let text = "Very close, reach out."
        var slow = VoiceSettings.standard, fast = VoiceSettings.standard
        slow.rate = 120
        fast.rate = 350
        let slowPhrase = try engine.synthesize(text, voice: slow)
        let fastPhrase = try engine.synthesize(text, voice: fast)
        #expect(Double(fastPhrase.samples.count) < Double(slowPhrase.samples.count) * 0.6)
    }

    @Test func volumeScalesTheLevel() throws {
        let engine = try espeak()
        var quiet = VoiceSettings.standard
        quiet.volume = 30
        let normal = try engine.synthesize("Signal lost, keep still.", voice: .standard)
        let soft = try engine.synthesize("Signal lost, keep still.", voice: quiet)
        #expect(PCMAnalysis.rms(soft.samples) < PCMAnalysis.rms(normal.samples) * 0.6)
    }

    @Test func unknownVoiceFallsBackToTheDefaultAndSaysWhich() throws {
        let engine = try espeak()
        var settings = VoiceSettings.standard
        settings.voice = "xx-notavoice"
        let phrase = try engine.synthesize("Hello", voice: settings)
        #expect(phrase.voice == EspeakSpeech.defaultVoice)
        #expect(phrase.fallback == VoiceFallback(requested: "xx-notavoice", used: "en"))
        #expect(phrase.fallback?.description == "Voice xx-notavoice is not installed. Using voice en.")
        #expect(PCMAnalysis.rms(phrase.samples) > 0.02)
        #expect(try engine.resolveVoice("xx-notavoice")?.used == "en")
        #expect(try engine.resolveVoice("en") == nil)
    }

    @Test func otherInstalledLanguagesSpeak() throws {
        let engine = try espeak()
        let voices = engine.installedVoices()
        #expect(voices.contains("en") && voices.contains("de"))
        var german = VoiceSettings.standard
        german.voice = "de"
        let phrase = try engine.synthesize("Sehr nah, greifen Sie zu.", voice: german)
        #expect(phrase.fallback == nil && phrase.voice == "de")
        #expect(PCMAnalysis.rms(phrase.samples) > 0.02)
    }

    @Test func invalidSettingsAreRejectedWithTheRange() throws {
        var settings = VoiceSettings.standard
        settings.rate = 999
        #expect(throws: SpeechError("rate must be 80…450 words per minute, not 999")) {
            try espeak().synthesize("Hello", voice: settings)
        }
    }

    @Test func concurrentCallersAreSerialised() async throws {
        let engine = try espeak()
        let texts = ["One meter.", "About three meters, getting closer.", "Signal lost, keep still.", "Touch detected."]
        let serial = try texts.map { try engine.synthesize($0, voice: .standard).samples.count }
        let parallel = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for round in 0..<3 {
                for (index, text) in texts.enumerated() {
                    group.addTask {
                        var voice = VoiceSettings.standard
                        voice.pitch = round == 1 ? 20 : 50  // changes global state between calls
                        return (index, try engine.synthesize(text, voice: voice).samples.count)
                    }
                }
            }
            var counts: [Int: [Int]] = [:]
            for try await (index, count) in group { counts[index, default: []].append(count) }
            return counts
        }
        for (index, expected) in serial.enumerated() {
            // Pitch changes the length a little; interleaved state would change it a lot.
            for count in parallel[index] ?? [] {
                #expect(abs(count - expected) < expected / 5, "\(texts[index]): \(count) vs \(expected)")
            }
        }
    }
}

@Test func emptyPhraseIsAnErrorNotSilence() throws {
    #expect(throws: SpeechError("nothing to say: the phrase is empty")) {
        try espeak().synthesize("  \n", voice: .standard)
    }
    let cues = CueScheduler(speech: try espeak())
    #expect(cues.say(" ", at: 0) == .failed(id: 0, "nothing to say: the phrase is empty"))
    #expect(PCMAnalysis.peak(cues.render(upTo: 1)) == 0, "no attention tone for nothing")
}
