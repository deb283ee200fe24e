// Audio cue benchmark: cue latency through the live player into a real pipe to a real process,
// espeak-ng synthesis time per phrase, and virtual-time rendering speed (the demo's path).
// Usage: AudioCueBenchmark [EARCONS] [PHRASES]   (see BENCHMARKS.md, "Audio cues")
import Foundation
import GuideAudio

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let earconCount = arguments.first ?? 30
let phraseCount = arguments.dropFirst().first ?? 12

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func ms(_ value: Double) -> String { String(format: "%.2f", value * 1000) }

/// A sink that notes when each write finished handing its samples on.
final class TimedSink: AudioSink, @unchecked Sendable {
    let inner: any AudioSink
    var name: String { inner.name }
    private let lock = NSLock()
    private var written = 0
    private var finished: [(first: Int, count: Int, at: ContinuousClock.Instant)] = []

    init(_ inner: any AudioSink) { self.inner = inner }

    func write(_ samples: [Int16]) throws {
        try inner.write(samples)
        let now = ContinuousClock.now
        lock.withLock {
            finished.append((written, samples.count, now))
            written += samples.count
        }
    }

    func close() throws { try inner.close() }

    /// When the write carrying sample `index` returned.
    func arrival(ofSample index: Int) -> ContinuousClock.Instant? {
        lock.withLock { finished.first { $0.first <= index && index < $0.first + $0.count }?.at }
    }
}

// The sink: raw PCM piped into a running process, as with pw-play/paplay/aplay, minus the device.
let consumer = AudioPlayer(program: "cat", arguments: [])
guard let catPath = consumer.locate(in: ProcessInfo.processInfo.environment) else { fatalError("cat not on PATH") }
let pipeSink = try PlayerSink(player: consumer, path: catPath, environment: ProcessInfo.processInfo.environment)
let sink = TimedSink(pipeSink)
let engine = try EspeakSpeech.shared()

// Baseline: handing an already-rendered earcon straight to the same pipe.
var rawWrites: [Double] = []
for earcon in Earcon.allCases.shuffled() + Earcon.allCases.shuffled() {
    let start = ContinuousClock.now
    try pipeSink.write(earcon.samples)
    rawWrites.append(seconds(ContinuousClock.now - start))
}

let phrases = [
    "About 10 meters.", "About 3 meters.", "Very close, reach out.", "Getting closer.",
    "Signal lost, keep still.", "Touch detected. Press Enter to confirm your ride.",
    "Ride confirmed. Your driver is Alex, blue Toyota Prius.",
]

// Live player at its defaults, with the pulse running as it does while guiding; the rate limit
// is lifted so every requested phrase is measured.
let unlimited = CuePolicy(maxPhrases: 1000)
let player = LiveCuePlayer(speech: engine, policy: unlimited, sink: sink, log: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
player.start()
player.setPulse(interval: 0.4)
Thread.sleep(forTimeInterval: 0.5)

struct Measured { var kind: String; var handoff: Double; var queuedAhead: Double }
var measured: [Measured] = []

@MainActor func measure(_ kind: String, _ request: () -> CueOutcome) {
    let requestedAt = ContinuousClock.now
    let timelineNow = player.now
    let outcome = request()
    let record = player.log[outcome.id]
    guard let startSample = record.startSample,
          let arrived = sink.arrival(ofSample: startSample) else {
        FileHandle.standardError.write(Data("\(kind): not sounded (\(record.fate))\n".utf8))
        return
    }
    measured.append(Measured(kind: kind, handoff: seconds(arrived - requestedAt), queuedAhead: record.start! - timelineNow))
    Thread.sleep(forTimeInterval: (record.end! - player.now) + 0.45)
}

let earcons: [Earcon] = [.closer, .farther, .touch, .signalLost, .attention]
for index in 0..<earconCount { measure("earcon") { player.play(earcons[index % earcons.count]) } }
for index in 0..<phraseCount { measure("speech") { player.say(phrases[index % phrases.count]) } }
try player.stop()

print("## cue latency: request -> first sample of the cue handed to the sink (pipe to a process)\n")
print("| cue | n | p50 ms | p95 ms | max ms | p50 / raw write | queued ahead p50 ms | max ms |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
let rawP50 = percentile(rawWrites, 0.5)
print("| raw write of a rendered earcon (baseline) | \(rawWrites.count) | \(ms(rawP50)) | \(ms(percentile(rawWrites, 0.95))) | \(ms(rawWrites.max()!)) | 1.0 | – | – |")
for kind in ["earcon", "speech"] {
    let rows = measured.filter { $0.kind == kind }
    let handoffs = rows.map(\.handoff), ahead = rows.map(\.queuedAhead)
    print("| \(kind) | \(rows.count) | \(ms(percentile(handoffs, 0.5))) | \(ms(percentile(handoffs, 0.95))) | \(ms(handoffs.max() ?? .nan)) | \(String(format: "%.1f", percentile(handoffs, 0.5) / rawP50)) | \(ms(percentile(ahead, 0.5))) | \(ms(ahead.max() ?? .nan)) |")
}

print("\n## espeak-ng synthesis per phrase (voice en, rate 175; median of 10)\n")
print("| phrase | audio s | synthesis ms | synthesis / audio |")
print("| --- | ---: | ---: | ---: |")
for text in phrases {
    var times: [Double] = []
    var duration = 0.0
    for _ in 0..<10 {
        let phrase = try engine.synthesize(text, voice: .standard)
        times.append(phrase.synthesisSeconds)
        duration = phrase.duration
    }
    let median = percentile(times, 0.5)
    print("| \(text) | \(String(format: "%.2f", duration)) | \(ms(median)) | \(String(format: "%.3f", median / duration)) |")
}

// Virtual time: a 10-minute guided walk's worth of cues rendered into a WAV as fast as possible.
let walkSeconds = 600.0
let wavPath = NSTemporaryDirectory() + "audio-cue-benchmark.wav"
let wav = try WAVFileSink(path: wavPath)
let virtual = CueScheduler(speech: engine)
let renderStart = ContinuousClock.now
var time = 0.0
while time < walkSeconds {
    let distance = max(0, 25 - time / walkSeconds * 25)
    virtual.setPulse(interval: max(0, min(1.5, distance / 12)), at: time)
    if Int(time * 10) % 50 == 0 { virtual.say("About \(Int(distance)) meters.", at: time) }
    if Int(time * 10) % 20 == 7 { virtual.play(Int(time) % 3 == 0 ? .farther : .closer, at: time) }
    time += 0.1
    try virtual.render(upTo: time, into: wav)
}
try wav.close()
let renderWall = seconds(ContinuousClock.now - renderStart)
let counts = virtual.log.soundedCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
print("\n## virtual-time rendering (demo path: scheduler + espeak-ng + WAV file)\n")
print("\(Int(walkSeconds)) s of timeline in \(String(format: "%.2f", renderWall)) s wall = \(String(format: "%.0f", walkSeconds / renderWall))x real time; cues sounded: \(counts)")
try? FileManager.default.removeItem(atPath: wavPath)
