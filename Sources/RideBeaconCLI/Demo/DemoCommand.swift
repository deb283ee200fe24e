import ArgumentParser
import BeaconCore
import Foundation
import Guide
import GuideSimulation
import GuideAudio
import Phrasebook
import RideClient
import RideStore
import Synchronization

/// `ridebeacon demo`: the whole product on one machine. The real server (SQLite, temp dir),
/// a passenger and a driver talking to it over HTTP, the driver's rotating identity on the
/// simulated radio channel, and a simulated passenger guided by the real guide to touch and
/// confirmation; the audio goes to `--audio-out`.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Guide a simulated passenger to a simulated car through the real server, guide and audio; prints a transcript and a JSON summary.",
        discussion: """
        The walk runs in virtual time on a simulated street: parked cars, a kerb and a roadway, the car's \
        body in the way. docs/SIMULATOR.md lists every parameter, its source and how far the figures move \
        with it. Fitted to real data: each phone's report intervals (drawn from a real receiver's), the last \
        metre and the touch (a real phone pair's levels), the receiver floor and the loss of a phone in a \
        pocket or bag. Cited: the car body's radio loss. Cited where a source was found, otherwise assumed: \
        the sounds' levels and the listener. Assumed: the outdoor channel beyond 1 m, the walker and the \
        driver. The same seed gives the same walk. --world open is the earlier open field (its channel \
        fitted to indoor corridor walks). The audio of the walk is written as it would have sounded.
        """
    )

    @Option(help: ArgumentHelp("The language the guide speaks: \(Language.codes) (espeak-ng's voice for it).", valueName: "CODE"))
    var language = "en"

    @Option(help: "Where the walk starts, metres from the car (2 to 100).")
    var startDistance = 25.0

    /// A walk on the street that ends confirmed (BENCHMARKS.md, "The street": most walks from
    /// 25 m do not, by touch alone).
    @Option(help: "Simulator seed; the same seed gives the same walk.")
    var seed: UInt64 = 7

    @Option(help: "street (parked cars, kerb, roadway; the default) or open (the earlier open field).")
    var world = "street"

    @Option(help: "The simulated driver: helpful, busy, silent (never answers, never moves) or legacy (before the meeting features).")
    var driver = "helpful"

    @Option(help: "FILE.wav, - (raw PCM on stdout), auto (system player) or none.")
    var audioOut = "demo.wav"

    @Option(help: "earcons, brief or full.")
    var verbosity = "full"

    @Option(help: "Direction-finding aids: none, turn (turn-to-find), locator (the car's locator sound) or all.")
    var aids = "all"

    @Flag(name: .customLong("simulated-compass"),
          help: "The simulated phone has a compass: turn-to-find follows its heading instead of timing the turn.")
    var simulatedCompass = false

    @Option(help: ArgumentHelp("Vibrations: on (recorded beside the sounds, <pattern> in the transcript), off, or only (silent guidance: the walker feels, the WAV stays silent).",
                               valueName: "on|off|only"))
    var haptics = HapticsMode.on

    @Option(help: ArgumentHelp("Satellite positions: on (both simulated phones share theirs through the ride server and the guide speaks them beyond Bluetooth range) or off.",
                               valueName: "on|off"))
    var positions = "on"

    @Flag(help: "Print only the JSON summary.")
    var json = false

    func validate() throws {
        guard (2...100).contains(startDistance) else { throw ValidationError("--start-distance must be 2 to 100 metres, not \(startDistance)") }
        guard Verbosity(rawValue: verbosity) != nil else {
            throw ValidationError("--verbosity must be one of \(Verbosity.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard GuideAids(rawValue: aids) != nil else { throw ValidationError(GuideAids.usage) }
        guard Language(rawValue: language) != nil else {
            throw ValidationError("--language must be one of \(Language.codes), not \"\(language)\"")
        }
        guard world == "street" || world == "open" else { throw ValidationError("--world must be street or open, not \(world)") }
        guard positions == "on" || positions == "off" else { throw ValidationError("--positions must be on or off, not \(positions)") }
        guard DriverMode(rawValue: driver) != nil else { throw ValidationError(DriverMode.usage + ", not \(driver)") }
        do { _ = try AudioOutput(parsing: audioOut) } catch { throw ValidationError(error.description) }
        if audioOut == "-" && !json { throw ValidationError("--audio-out - writes PCM to stdout; add --json to keep the transcript off it") }
    }

    func run() async throws {
        let transcript = Transcript(quiet: json)
        let sink: any AudioSink
        do {
            sink = try AudioOutput.open(audioOut) { transcript.note($0) }
        } catch {
            throw CommandLineFailure(error.description)
        }
        let server = try await DemoServer()
        do {
            var walk = GuidedWalk.Configuration(seed: seed, startDistance: startDistance,
                                                verbosity: Verbosity(rawValue: verbosity) ?? .full)
            walk.aids = GuideAids(rawValue: aids) ?? .all
            walk.haptics = haptics
            walk.phrases = PhraseTable(Language(rawValue: language) ?? .en)
            walk.street = world == "street" ? StreetParameters() : nil
            walk.driver = DriverMode(rawValue: driver) ?? .helpful
            if simulatedCompass { walk.compass = SimulatedCompass.Parameters() }
            // Both phones share their satellite positions (issue 35); the street only.
            if positions == "on", walk.street != nil { walk.positions = GNSSParameters() }
            // A passenger does not give up after the benchmark's 300 s cap.
            walk.timeLimit = 600
            let summary = try await DemoSession(server: server, transcript: transcript, sink: sink, configuration: walk).run()
            await server.stop()
            transcript.note(Self.closingLine(summary, timeLimit: walk.timeLimit))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let line = String(decoding: try encoder.encode(summary), as: UTF8.self)
            if audioOut == "-" {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            } else {
                print(line)
            }
            if !summary.confirmed { throw ExitCode(1) }
        } catch let error as RideClientError {
            await server.stop()
            throw CommandLineFailure("demo: the ride service failed: \(error.description)")
        } catch {
            await server.stop()
            throw error
        }
    }
}

extension DemoCommand {
    /// The walk's last line before the JSON, so a demo that ends unconfirmed says so and why
    /// rather than stopping at the cap with make's "Error 1" as its only word (issue 37, 5).
    /// Unconfirmed, it says whether the guide's escalation ladder got as far as "call your driver
    /// or the dispatcher" (issue 37, 4), which the simulated passenger cannot do.
    static func closingLine(_ summary: WalkSummary, timeLimit: Double) -> String {
        guard summary.confirmed else {
            let called = summary.cues.keys.contains { $0 == "say:" + PhraseID.guideCallDispatcher.guideName
                || $0 == "say:" + PhraseID.guideCallDriver.guideName }
            let next = called
                ? "The guide had told her to call the driver or the dispatcher (its last step when nothing helps), which the "
                    + "simulated passenger cannot do; try "
                : "A passenger in this situation calls the driver or the dispatcher; try "
            return "demo: not confirmed: after \(Int(timeLimit)) s of walking (the demo's cap) Ana had not found Ben's car and the ride "
                + "was not confirmed (exit status 1). " + next + "another --seed or --driver helpful."
        }
        let how = summary.confirmedBy == "word" ? "by the ride word, said face to face" : "by the touch both phones felt"
        let when = summary.secondsToConfirm.map { " after \(Int($0.rounded())) s" } ?? ""
        return "demo: ride confirmed \(how)\(when) (exit status 0)."
    }
}

/// The transcript lines, timestamped in walk time, on stdout (or nowhere with --json).
final class Transcript: Sendable {
    let quiet: Bool
    private let latest = Mutex(0.0)
    /// The walk time of the latest timed line: untimed events (a proof's answer) are noted then.
    var lastTime: Double { latest.withLock { $0 } }
    init(quiet: Bool) { self.quiet = quiet }

    func note(_ line: String) {
        guard !quiet else { return }
        print(line)
    }

    func at(_ time: Double, _ text: String) {
        latest.withLock { $0 = max($0, time) }
        note(String(format: "%7.2f s  ", time) + text)
    }
}

extension HapticsMode: ExpressibleByArgument {}
