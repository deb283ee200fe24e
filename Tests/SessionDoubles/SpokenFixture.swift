import BeaconCore
import Foundation
import GuideAudio
import TestSupport

/// Spoken input for the voice-command tests: espeak-ng recordings in fixtures/voice/ (its
/// make.sh says why they are recorded rather than synthesised during the run), placed between
/// stretches of quiet room noise.
public enum SpokenFixture {
    /// fixtures/voice/`name`.wav after `lead` seconds of quiet and before `tail` seconds, as a new
    /// WAV file whose path is returned (the caller removes it). The quiet is drawn from `seed`, so
    /// the file is the same on every run: PocketSphinx's answer on marginal audio must not change
    /// from one run to the next.
    public static func wav(_ name: String, lead: Double = 1, tail: Double = 1, seed: UInt64 = 1) throws -> String {
        let recorded = Repository.root.appendingPathComponent("fixtures/voice/\(name).wav")
        let speech = try WAVFile.decode(try Data(contentsOf: recorded))
        var rng = SplitMix64(seed: seed)
        let quiet = { (seconds: Double) in
            (0..<Int(seconds * Double(speech.sampleRate * speech.channels))).map { _ in Int16.random(in: -60...60, using: &rng) }
        }
        let padded = WAVFile(sampleRate: speech.sampleRate, channels: speech.channels, samples: quiet(lead) + speech.samples + quiet(tail))
        let path = NSTemporaryDirectory() + "rb-voice-\(name)-\(UUID().uuidString).wav"
        try padded.encoded().write(to: URL(fileURLWithPath: path))
        return path
    }
}
