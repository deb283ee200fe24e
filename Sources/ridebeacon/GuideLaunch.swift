import ArgumentParser
import RadioCore
import Foundation
import Guide
import GuideAudio
import BeaconCore
import RideClient

/// Everything `passenger guide` resolved before guiding, and the hand-over to the live guide
/// (Sources/Guide/Runtime): radio, audio player and keys opened here, guiding there.
struct GuideLaunch {
    let client: RideServiceClient
    let ride: Ride
    let settings: Settings
    let radio: RadioSelection
    let audioOut: String
    /// For servers that do not send `identityPeriodSeconds` with the ride key.
    let fallbackIdentityPeriod: Int
    let calibration: Calibration

    func run() async throws {
        Say.line("Ride \(ride.id): your driver is \(RideWords.driver(ride.driver)). \(RideWords.state(ride.state))")
        if ride.state == .confirmed || ride.state.isFinal { return }
        guard let key = ride.rideKey else { throw CommandLineFailure("the ride service sent no key for ride \(ride.id)") }
        let identity: RotatingIdentity
        do { identity = try key.identity(fallbackPeriod: fallbackIdentityPeriod) } catch {
            throw CommandLineFailure("ride \(ride.id): \(error)")
        }
        let sink: any AudioSink
        do { sink = try AudioOutput.open(audioOut) { StandardError.writeLine("ridebeacon: \($0)") } } catch {
            throw CommandLineFailure(error.description)
        }
        var speech: (any SpeechEngine)?
        do {
            let engine = try EspeakSpeech.shared()
            if let fallback = try engine.resolveVoice(settings.voice.voice) { StandardError.writeLine("ridebeacon: \(fallback)") }
            speech = engine
        } catch {
            StandardError.writeLine("ridebeacon: speech is off: \(error)")
        }
        let player = LiveCuePlayer(speech: speech, voice: settings.voice, sink: sink) { StandardError.writeLine("ridebeacon: \($0)") }
        let radio = try await openRadio(self.radio)
        let guide = LiveGuide(
            ride: GuideRide(rideID: ride.id, driverName: ride.driver.name, vehicle: ride.driver.vehicle ?? "your driver's car",
                            identity: identity),
            alreadyArrived: ride.state == .arrived, verbosity: settings.verbosity, phrases: PhraseTable.table(for: settings.language),
            calibration: calibration, radio: radio, service: client, player: player, keys: KeyboardKeys.stream()) { Say.line($0) }
        let outcome = await guide.run()
        await radio.shutdown()
        switch outcome {
        case .confirmed: return
        case .cancelled: throw CommandLineFailure("ride \(ride.id) was cancelled")
        default: throw ExitCode(130)
        }
    }
}

/// The passenger's keys from standard input, a line at a time (a screen reader's terminal and
/// a pipe alike): "r" repeat, "d" where is my driver, "s" ask the car to tick, "q" quit, an empty line is Enter.
enum KeyboardKeys {
    static func stream() -> AsyncStream<GuideKey> {
        let (keys, continuation) = AsyncStream<GuideKey>.makeStream()
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if let key = trimmed.isEmpty ? GuideKey.confirm : trimmed.first.flatMap(GuideKey.init(character:)) {
                    continuation.yield(key)
                }
            }
            continuation.finish()
        }
        thread.start()
        return keys
    }
}

/// Sentences about a ride, for printing (and, in the guide, speaking).
enum RideWords {
    static func driver(_ party: RideParty) -> String {
        party.vehicle.map { "\(party.name), \($0)" } ?? party.name
    }

    /// Position along requested → completed; cancelled ends any of them.
    static func progress(_ state: RideState) -> Int {
        switch state {
        case .requested: 0
        case .accepted: 1
        case .arrived: 2
        case .confirmed: 3
        case .completed, .cancelled: 4
        }
    }

    static func state(_ state: RideState) -> String {
        switch state {
        case .requested: "Waiting for a driver."
        case .accepted: "Your driver is on the way."
        case .arrived: "Your driver has arrived."
        case .confirmed: "Ride confirmed."
        case .completed: "Ride completed."
        case .cancelled: "Ride cancelled."
        }
    }
}
