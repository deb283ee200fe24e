import BeaconCore
import Foundation
import Synchronization
import Testing
@testable import GuideAudio

@Suite struct WAVTests {
    @Test func wavFileParsesBackWithTheRightHeaderAndLength() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/cues.wav"
        let sink = try WAVFileSink(path: path)
        let first = Earcon.closer.samples, second = Earcon.touch.samples
        try sink.write(first)
        try sink.write(second)
        try sink.close()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == 44 + (first.count + second.count) * 2)
        #expect(Array(data[0..<4]) == Array("RIFF".utf8) && Array(data[8..<16]) == Array("WAVEfmt ".utf8))
        func u32(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 | Int(data[at + 3]) << 24 }
        #expect(u32(4) == data.count - 8)
        #expect(u32(24) == 22_050 && u32(28) == 44_100)
        #expect(u32(40) == data.count - 44)
        let wav = try WAVFile.decode(data)
        #expect(wav.sampleRate == 22_050 && wav.channels == 1)
        #expect(wav.samples == first + second)
        #expect(abs(wav.duration - (Earcon.closer.duration + Earcon.touch.duration)) < 1e-9)
    }

    @Test func encodeDecodeRoundTrip() throws {
        let wav = WAVFile(samples: [0, 1, -1, .max, .min, 1234])
        #expect(try WAVFile.decode(wav.encoded()) == wav)
    }

    @Test func decoderRejectsDamagedFilesWithoutTrapping() throws {
        let good = WAVFile(samples: Earcon.pulse.samples).encoded()
        #expect(throws: WAVError.notWAV) { try WAVFile.decode(Data("hello".utf8)) }
        #expect(throws: WAVError.riffSizeMismatch(declared: good.count, actual: good.count - 10)) {
            try WAVFile.decode(good.prefix(good.count - 10))
        }
        var eightBit = good
        eightBit[34] = 8
        #expect(throws: WAVError.unsupportedFormat(code: 1, bits: 8)) { try WAVFile.decode(eightBit) }
        // Random corruption anywhere: an error or a file, never a trap.
        var random = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            var damaged = [UInt8](good.prefix(200))
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = try? WAVFile.decode(Data(damaged.prefix(Int.random(in: 0...damaged.count, using: &random))))
        }
    }

    @Test func unwritableWAVPathIsAnErrorNamingIt() {
        #expect(throws: AudioSinkError("/nonexistent-dir/out.wav: cannot create the WAV file")) {
            try AudioOutput.open("/nonexistent-dir/out.wav", log: { _ in })
        }
    }
}

@Suite struct AudioOutputTests {
    @Test func parsesEachForm() throws {
        #expect(try AudioOutput(parsing: "demo.wav") == .wavFile("demo.wav"))
        #expect(try AudioOutput(parsing: "OUT.WAV") == .wavFile("OUT.WAV"))
        #expect(try AudioOutput(parsing: "-") == .standardOutput)
        #expect(try AudioOutput(parsing: "auto") == .systemPlayer)
        #expect(try AudioOutput(parsing: "none") == .none)
        for bad in ["demo.mp3", "", ".wav", "speaker"] {
            #expect(throws: AudioSinkError("--audio-out must be FILE.wav, - (raw PCM on stdout), auto (system player) or none, not \"\(bad)\"")) {
                try AudioOutput(parsing: bad)
            }
        }
    }

    @Test func noneAndStdoutOpenTheirSinks() throws {
        #expect(try AudioOutput.open("none", log: { _ in }).name == "none")
        #expect(try AudioOutput.open("-", log: { _ in }).name == "stdout")
    }

    @Test func autoPicksTheFirstPlayerOnPathAndFeedsItRawPCM() throws {
        let directory = try TemporaryDirectory()
        let output = directory.path + "/played.raw"
        // Only paplay and aplay exist; paplay comes first in preference.
        try directory.script("paplay", "echo \"$@\" > '\(directory.path)/args'; exec /bin/cat > '\(output)'")
        try directory.script("aplay", "exit 3")
        let sink = try AudioOutput.open("auto", environment: ["PATH": directory.path], log: { _ in })
        #expect(sink.name == "paplay")
        let samples = Earcon.attention.samples
        try sink.write(samples)
        try sink.close()
        let played = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(played == WAVFile(samples: samples).encoded().dropFirst(44))
        let args = try String(contentsOfFile: directory.path + "/args", encoding: .utf8)
        #expect(args.contains("--raw") && args.contains("--rate=22050") && args.contains("--format=s16le"))
    }

    @Test func busyPlayerFallsBackToTheNextAndLogsIt() throws {
        let directory = try TemporaryDirectory()
        let output = directory.path + "/played.raw"
        try directory.script("pw-play", "echo 'error: audio device busy' >&2; exit 1")
        try directory.script("aplay", "exec /bin/cat > '\(output)'")
        let messages = Messages()
        let sink = try AudioOutput.open("auto", environment: ["PATH": directory.path], log: messages.append)
        // More than a pipe buffer of audio, so the dead player is noticed while writing.
        let chunk = [Int16](repeating: 1000, count: 22_050)
        var last: [Int16] = []
        for index in 0..<6 {
            last = chunk.map { $0 + Int16(index) }
            try sink.write(last)
        }
        try sink.close()
        #expect(sink.name == "aplay")
        let log = messages.all.joined(separator: "\n")
        #expect(log.contains("pw-play") && log.contains("falling back to aplay"), "\(log)")
        let played = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(played.count >= last.count * 2)
        #expect(played.suffix(last.count * 2) == WAVFile(samples: last).encoded().dropFirst(44), "the fallback got the audio")
    }

    @Test func whenEveryPlayerFailsAudioGoesSilentAndSaysSo() throws {
        let directory = try TemporaryDirectory()
        try directory.script("pw-play", "exit 1")
        try directory.script("paplay", "exit 2")
        let messages = Messages()
        let sink = try AudioOutput.open("auto", environment: ["PATH": directory.path], log: messages.append)
        for _ in 0..<6 { try sink.write([Int16](repeating: 5, count: 22_050)) }
        try sink.close()
        #expect(sink.name == "none")
        #expect(messages.all.last?.contains("audio is off") == true, "\(messages.all)")
    }

    @Test func noPlayerOnPathIsLogged() throws {
        let directory = try TemporaryDirectory()
        let messages = Messages()
        let sink = try AudioOutput.open("auto", environment: ["PATH": directory.path], log: messages.append)
        #expect(sink.name == "none")
        #expect(messages.all == ["audio: none of pw-play, paplay, aplay is on PATH; audio is off"])
    }
}

final class Messages: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

@Suite struct StalledPlayerTests {
    @Test func playerThatStopsReadingIsLeftForTheNext() throws {
        let directory = try TemporaryDirectory()
        let output = directory.path + "/played.raw"
        // Alive but never reading: what a suspended sound server looks like from here.
        try directory.script("pw-play", "exec /bin/sleep 60")
        try directory.script("paplay", "exec /bin/cat > '\(output)'")
        let messages = Messages()
        let sink = try AudioOutput.open("auto", environment: ["PATH": directory.path], log: messages.append)
        let chunk = [Int16](repeating: 300, count: 22_050)
        for _ in 0..<4 { try sink.write(chunk) }
        try sink.close()
        #expect(sink.name == "paplay")
        #expect(messages.all.contains { $0.contains("pw-play accepted no audio") && $0.contains("falling back to paplay") }, "\(messages.all)")
        let played = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(played.count >= chunk.count * 2)
    }
}
