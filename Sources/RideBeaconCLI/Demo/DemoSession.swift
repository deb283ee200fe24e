import BeaconCore
import Foundation
import Guide
import GuideSimulation
import GuideAudio
import RideClient
import RideSession

/// One demo ride from request to confirmation: accounts, request → accept → arrive over the
/// API, the passenger's live event stream announcing the arrival, the guided walk, both touch
/// proofs, and the audio rendered along the walk's timeline.
struct DemoSession {
    let server: DemoServer
    let transcript: Transcript
    let sink: any AudioSink
    let configuration: GuidedWalk.Configuration

    func run() async throws -> WalkSummary {
        let passengerToken = try await server.createAccount(role: .passenger, name: "Ana")
        let driverToken = try await server.createAccount(role: .driver, name: "Ben", vehicle: Vehicle(colour: "blue", make: "Toyota", model: "Prius", plate: "AB12 CDE"))
        return try await withRideServiceClient(server: server.baseURL, token: passengerToken) { passenger in
            try await withRideServiceClient(server: server.baseURL, token: driverToken) { driver in
                try await run(passenger: passenger, driver: driver)
            }
        }
    }

    private func run(passenger: RideServiceClient, driver: RideServiceClient) async throws -> WalkSummary {
        transcript.note("demo: ride server on \(server.baseURL) (SQLite in \(server.directory.path)), seed \(configuration.seed)")

        // Her account's language is the demo's, so the ride word comes in it (`SharedRideWord`).
        try await passenger.setAccountLanguage(configuration.phrases.book.language.rawValue)
        let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"))
        transcript.note("passenger: requested a ride (\(request.handle))")
        let accepted = try await driver.acceptRideRequest(request.id)
        transcript.note("driver: accepted, ride \(accepted.handle)")
        let key = try await passenger.rideKey(accepted.id)
        let identity = try RotatingIdentity(rideKey: key.bytes, period: key.periodSeconds ?? RotatingIdentity.defaultPeriod)

        // The passenger hears of the arrival from the live stream, not by polling.
        let arrival = Task { () throws -> RideClient.Ride? in
            for try await update in passenger.rideEvents(accepted.id) where update.event?.state == .arrived {
                return try await passenger.ride(accepted.id)
            }
            return nil
        }
        _ = try await driver.arrive(accepted.id)
        guard let ride = try await arrival.value else { throw CommandLineFailure("demo: the event stream ended before the arrival") }
        transcript.note("passenger: event stream says the driver arrived; guiding from \(Int(configuration.startDistance)) m")

        let guideRide = GuideRide(rideID: ride.id, driverName: ride.driver.name, vehicle: RideWords.vehicle(ride.driver, in: configuration.phrases.book) ?? configuration.phrases.book(.rideUnknownVehicle),
                                  identity: identity, rideWord: SharedRideWord.phrase(ride, key: key.bytes))
        var speech: (any SpeechEngine)?
        do { speech = try EspeakSpeech.shared() } catch { transcript.note("audio: speech is off: \(error.description)") }
        // The voice of the guide's language (`demo --language`).
        var voice = VoiceSettings.standard
        voice.voice = configuration.phrases.book.language.espeakVoice
        let audio = WalkAudio(speech: speech, sink: sink, voice: voice)
        var walk = GuidedWalk(ride: guideRide, configuration: configuration)
        if let scene = walk.world.scene {
            let side = walk.world.walker.position.x > walk.world.device.x ? "behind" : "ahead of"
            transcript.note("street: the car stopped \(scene.street.placement.sentence), its device \(scene.street.device.sentence); "
                + String(format: "Ana is on the pavement %.0f m %@ it; street noise %.0f dB(A)", walk.world.trueDistance, side, scene.streetNoise))
        }
        transcript.note("      time  true     estimate  cue")
        var lastSafety = 0
        // Vibrations beside the sounds (`--haptics`): each pattern in the transcript as <name>,
        // the pulse's taps counted (one a line would drown the transcript).
        var felt: [String: Int] = [:]
        var positionsSaidAt = -Double.infinity
        let summary = await walk.run(
            unixTime: { _ in Date().timeIntervalSince1970 },
            onCue: { cue, moment in
                let estimate = moment.estimatedDistance.map { String(format: "%6.2f m", $0) } ?? "     - m"
                transcript.at(moment.time, String(format: "%6.2f m  ", moment.trueDistance) + estimate + "  " + cue.description)
                // Haptics only: silent guidance, nothing in the WAV.
                if configuration.haptics.sounds { audio.cue(cue) }
            },
            onPulse: { interval, time in if configuration.haptics.sounds { audio.pulse(interval, at: time) } },
            onHaptic: { haptic, moment in
                felt[haptic.event.rawValue, default: 0] += 1
                guard haptic.event != .pulse else { return }
                let estimate = moment.estimatedDistance.map { String(format: "%6.2f m", $0) } ?? "     - m"
                transcript.at(moment.time, String(format: "%6.2f m  ", moment.trueDistance) + estimate + "  " + haptic.description)
            },
            onDriver: { action, time in
                switch action {
                case .say(let phrase): transcript.at(time, "driver: " + phrase.rawValue)
                case .locator(.start(let seconds)): transcript.at(time, "driver: locator ticks on for \(Int(seconds.rounded())) s")
                case .locator(.stop): transcript.at(time, "driver: locator ticks off")
                case .tell(let words): transcript.at(time, "driver's device: " + words)
                case .answerLocator(let sound): transcript.at(time, "driver: answered the sound request: \(sound.rawValue)")
                case .meeting(let move): transcript.at(time, "driver: \(move == .coming ? "I'm coming to you" : "the car is across the street")")
                default: break
                }
            },
            onStep: { world in
                guard world.walker.safetyEvents > lastSafety else { return }
                lastSafety = world.walker.safetyEvents
                transcript.at(world.time, "SAFETY: Ana stepped into the roadway")
            },
            onPositions: { time, own, car in
                // Every 10 s of the walk; the first pair also goes through the real ride server,
                // each phone posting its own and her phone reading the car's back (issue 35).
                guard let own, time - positionsSaidAt >= 10 else { return }
                let first = positionsSaidAt == -.infinity
                positionsSaidAt = time
                var line = "positions: Ana's phone " + Self.describe(own)
                if let car { line += "; the car's " + Self.describe(car) + String(format: "; %.0f m apart by satellite", own.distance(to: car)) }
                transcript.at(time, line)
                guard first, let car else { return }
                do {
                    try await passenger.putPosition(ride.id, own)
                    try await driver.putPosition(ride.id, car)
                    let read = try await passenger.otherPartyPosition(ride.id)
                    transcript.at(time, "ride service: her phone reads the car's position back: " + (read.map(Self.describe) ?? "none"))
                } catch {
                    transcript.at(time, "ride service: positions not shared: \(error)")
                }
            },
            locate: { time in
                let answer = await passenger.requestLocator(rideID: ride.id)
                transcript.at(time, "passenger: asked the car to sound its locator: \(answer)")
                return answer
            },
            confirmWord: { word in
                do {
                    let confirmed = try await passenger.confirmByRideWord(ride.id, word: word)
                    transcript.at(transcript.lastTime, "ride service: confirmed by the ride word (\(confirmed.state))")
                    return .confirmed
                } catch {
                    transcript.at(transcript.lastTime, "ride service: refused the ride word: \(error)")
                    return .rejected("\(error)")
                }
            },
            prove: { side, seen in
                await prove(side, seen, rideID: ride.id, client: side == .passenger ? passenger : driver, at: transcript.lastTime)
            })
        audio.finish()
        if let line = audio.failure { transcript.note("audio: \(line)") }
        let cues = audio.log.count
        transcript.note("audio: \(configuration.haptics.sounds ? "\(cues) cues rendered" : "silent (--haptics only)")"
            + (configuration.haptics.vibrates
                ? "; haptics: " + felt.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                : "; haptics off"))
        return summary
    }

    /// Posts one side's proof to the real server (its mutual policy decides) and notes the answer.
    private func prove(_ side: BeaconSide, _ seen: TouchObservation, rideID: String, client: RideServiceClient,
                       at time: Double) async -> ProofAnswer {
        do {
            let outcome = try await client.submitTouchProof(Self.proof(seen), rideID: rideID)
            transcript.at(time, "\(side.rawValue): touch proof posted: \(Self.describe(outcome))")
            switch outcome {
            case .accepted(let result): return ProofAnswer(result.outcome)
            case .notVerified(let message): return .rejected(message)
            }
        } catch {
            transcript.at(time, "\(side.rawValue): touch proof failed: \(error.description)")
            return .rejected(error.description)
        }
    }

    static func proof(_ seen: TouchObservation) -> TouchProof {
        TouchProof(seen)
    }

    /// "51.50012, -0.12034 ±8 m" and the course when there is one.
    static func describe(_ fix: GeoFix) -> String {
        String(format: "%.5f, %.5f ±%.0f m", fix.latitude, fix.longitude, fix.accuracyMeters)
            + (fix.courseDegrees.map { String(format: ", course %.0f°", $0) } ?? "")
    }

    static func describe(_ outcome: TouchProofOutcome) -> String {
        switch outcome {
        case .accepted(let result): "\(result.outcome.rawValue) (ride \(result.ride.state.rawValue))"
        case .notVerified(let message): "not verified by this server (\(message))"
        }
    }
}
