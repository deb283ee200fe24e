import Foundation
import Testing
@testable import GuideAudio

/// The car's locator sound, measured in the WAV the driver's device would play: how many
/// ticks, how far apart, how long each, how loud, and that every octave a listener localises
/// with carries energy (a tone would not).
@Suite("Locator sound")
struct LocatorSoundTests {
    /// 30 s of ticks through the scheduler (the driver's audio path), written to a WAV file
    /// and read back.
    static func renderedWAV(seconds: Double = 30, start: Double = 0.5) throws -> WAVFile {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/locator.wav"
        let sink = try WAVFileSink(path: path)
        let scheduler = CueScheduler(speech: nil)
        for time in LocatorTick.times(from: start, seconds: seconds) {
            try scheduler.render(upTo: time, into: sink)
            scheduler.playLocatorTick(at: time)
        }
        try scheduler.render(upTo: start + seconds + 1, into: sink)
        try sink.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        // For BENCHMARKS.md's measurement of the sound (scripts/locator-sound.py reads it).
        if let keep = ProcessInfo.processInfo.environment["RIDEBEACON_LOCATOR_WAV"], seconds == 30 {
            try data.write(to: URL(fileURLWithPath: keep))
        }
        return try WAVFile.decode(data)
    }

    /// Energy per octave band, from Goertzel powers at 12 log-spaced frequencies in each
    /// (density × width: for pink noise every octave gets the same), in dB.
    static func octaveLevels(_ samples: ArraySlice<Int16>, octavesFrom lowest: Double, count: Int) -> [Double] {
        (0..<count).map { octave in
            let low = lowest * pow(2, Double(octave))
            let energy = (0..<12).reduce(0.0) { sum, step in
                let frequency = low * pow(2, (Double(step) + 0.5) / 12)
                return sum + PCMAnalysis.goertzelPower(samples, frequency: frequency) * frequency
            }
            return 10 * log10(max(energy, 1e-30))
        }
    }

    @Test func thirtyTicksOneSecondApartEachAShortLoudBurst() throws {
        let wav = try Self.renderedWAV()
        #expect(wav.sampleRate == AudioFormat.sampleRate && wav.channels == 1)
        let bursts = PCMAnalysis.soundingSpans(wav.samples, threshold: 0.01, bridging: 0.005)
        #expect(bursts.count == 30, "\(bursts.count) ticks")
        let starts = bursts.map { Double($0.lowerBound) / sampleRate }
        #expect(abs(starts.first! - 0.5) < 0.01)
        let periods = zip(starts, starts.dropFirst()).map { $1 - $0 }
        #expect(periods.allSatisfy { abs($0 - 1) < 0.006 }, "periods \(periods)")
        for burst in bursts {
            let length = Double(burst.count) / sampleRate
            #expect((0.015...0.040).contains(length), "burst of \(length) s")
            let samples = wav.samples[burst]
            #expect(PCMAnalysis.peak(samples) >= 0.85, "loud: peak \(PCMAnalysis.peak(samples))")
            #expect(PCMAnalysis.rms(samples) >= 0.15, "loud: rms \(PCMAnalysis.rms(samples))")
        }
        // Silence between the ticks: nothing else is played.
        let gap = wav.samples[bursts[3].upperBound + 100..<bursts[4].lowerBound - 100]
        #expect(PCMAnalysis.peak(gap) < 0.001)
    }

    @Test func theAttackIsFast() {
        let samples = LocatorTick.samples
        let peakIndex = samples.indices.max { abs(Int(samples[$0])) < abs(Int(samples[$1])) }!
        #expect(Double(peakIndex) / sampleRate < 0.004, "peak \(Double(peakIndex) / sampleRate) s after the onset")
        // It still starts from silence: no click from a jump at sample 0.
        #expect(samples.first == 0)
    }

    /// Issue 22: the energy is where phone speakers are loud and ears sensitive, 1–4 kHz, spread
    /// over the band (noise, not a tone, so it is localised); little below 500 Hz, where a phone
    /// speaker cannot play it, or above 8 kHz.
    @Test func theEnergyIsInTheBandFrom1To4kHzSpreadUnlikeATone() throws {
        let wav = try Self.renderedWAV(seconds: 3)
        let tick = wav.samples[PCMAnalysis.soundingSpans(wav.samples, threshold: 0.01, bridging: 0.005)[0]]
        // Octaves from 250 Hz: 250–500, 500–1k, 1–2k, 2–4k, 4–8k.
        let octaves = Self.octaveLevels(tick, octavesFrom: 250, count: 5)
        let band = max(octaves[2], octaves[3])
        #expect(abs(octaves[2] - octaves[3]) < 6, "1–2 kHz and 2–4 kHz alike: \(octaves.map { Int($0.rounded()) }) dB")
        #expect(band - octaves[0] > 15, "250–500 Hz well below the band: \(octaves.map { Int($0.rounded()) }) dB")
        #expect(band - octaves[4] > 3, "4–8 kHz below the band: \(octaves.map { Int($0.rounded()) }) dB")
        let high = Self.octaveLevels(tick, octavesFrom: 8_000, count: 1)[0]
        #expect(band - high > 15, "above 8 kHz well below the band: \(Int(high.rounded())) dB")
        // Spread within the band (noise): no one frequency carries it, as a tone's would.
        let inBand = stride(from: 1_100.0, through: 3_800, by: 150).map { PCMAnalysis.goertzelPower(tick, frequency: $0) }
        #expect(inBand.max()! / inBand.reduce(0, +) < 0.35, "one frequency carries \(inBand.max()! / inBand.reduce(0, +)) of the band")
        let pulse = Self.octaveLevels(Earcon.pulse.samples[...], octavesFrom: 250, count: 5)
        #expect(pulse.max()! - pulse.min()! > 20, "pulse \(pulse.map { Int($0.rounded()) })")
    }

    @Test func tickTimesCoverTheRequestedSpan() {
        #expect(LocatorTick.times(from: 2, seconds: 30).count == 30)
        #expect(LocatorTick.times(from: 2, seconds: 30).last == 31)
        #expect(LocatorTick.times(from: 0, seconds: 2.5) == [0, 1, 2])
        #expect(LocatorTick.times(from: 0, seconds: 0).isEmpty)
    }

    /// The runtime: the live player ticks into a WAV until stopped; nothing after the stop.
    @Test(.timeLimit(.minutes(1)))
    func theLiveTickerWritesTicksToTheSinkUntilStopped() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/live.wav"
        let player = LiveCuePlayer(speech: nil, sink: try WAVFileSink(path: path), log: { _ in })
        let ticker = LocatorTicker(player: player)
        ticker.start(seconds: 30, announcement: nil)
        // Bounded by the suite's time limit, not by a timing assertion.
        while player.log.filter({ $0.kind == .locatorTick && $0.fate == .sounded }).count < 3 {
            try await Task.sleep(for: .milliseconds(50))
        }
        try ticker.close()
        // Counted after the close: a tick already past its sleep when `stop` came still sounds.
        let played = player.log.filter { $0.kind == .locatorTick && $0.fate == .sounded }.count
        let wav = try WAVFile.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        // Every sounded tick is in the file. Counted by sound, not by bursts: a player that fell
        // behind on a loaded machine writes late ticks back to back, and they merge into one span.
        let sounding = PCMAnalysis.soundingSpans(wav.samples, threshold: 0.01, bridging: 0.005)
            .reduce(0) { $0 + $1.count }
        let ticksInFile = Double(sounding) / (LocatorTick.duration * Double(AudioFormat.sampleRate))
        #expect(played >= 3 && abs(ticksInFile - Double(played)) < 0.5, "\(ticksInFile) ticks of sound in the file, \(played) sounded")
        #expect(played < 30, "stopped early")
    }
}

/// Issue 36, finding 9: the driver's device spoke a passenger's message as written (bidi
/// overrides, escapes, zero-width and tag characters read out or swallowed into words). The
/// ticker, which speaks everything the driver hears, says it only through `SpokenText`.
@Suite struct DriverSpeechCleanupTests {
    @Test func theTickerSpeaksOnlyCleanedText() throws {
        let directory = try TemporaryDirectory()
        let player = LiveCuePlayer(speech: nil, sink: try WAVFileSink(path: directory.path + "/said.wav"), log: { _ in })
        let ticker = LocatorTicker(player: player)
        ticker.say("I am at the \u{202E}yrtne niam\u{202C}\u{1B}[2J  door\u{2028}now\u{E0041}\u{200B}!")
        ticker.start(seconds: 0, announcement: "Car\u{2066}across\u{2069}")
        ticker.say("\u{200B}\u{2028}")
        ticker.say("👩‍🦯 می‌خواهم")
        try ticker.close()
        let said = player.log.compactMap { record -> String? in if case .speech(let text) = record.kind { text } else { nil } }
        #expect(said == ["I am at the yrtne niam [2J door now !", "Car across", "👩‍🦯 می‌خواهم"], "\(said)")
    }

    @Test func theCleanupBlanksExactlyTheEdgeRulesCharacters() {
        #expect(SpokenText.cleaned("  a\u{0}b\u{2029}c\u{E000}d\u{200D}e\u{200C}f ") == "a b c d\u{200D}e\u{200C}f")
        #expect(SpokenText.isUnspeakable("\u{202A}") && SpokenText.isUnspeakable("\u{E007F}") && SpokenText.isUnspeakable("\u{00AD}"))
        #expect(!SpokenText.isUnspeakable("\u{200D}") && !SpokenText.isUnspeakable("é") && !SpokenText.isUnspeakable("\u{FE0F}"))
    }
}
