import BeaconCore
import Foundation
import Guide
import GuideAudio
import RideClient

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
        let driverToken = try await server.createAccount(role: .driver, name: "Ben", vehicle: "blue Toyota Prius")
        return try await withRideServiceClient(server: server.baseURL, token: passengerToken) { passenger in
            try await withRideServiceClient(server: server.baseURL, token: driverToken) { driver in
                try await run(passenger: passenger, driver: driver)
            }
        }
    }

    private func run(passenger: RideServiceClient, driver: RideServiceClient) async throws -> WalkSummary {
        transcript.note("demo: ride server on \(server.baseURL) (SQLite in \(server.directory.path)), seed \(configuration.seed)")

        let request = try await passenger.createRideRequest(NewRideRequest(passengerName: "Ana", pickup: "Main St 1", dropoff: "Station"))
        transcript.note("passenger: requested a ride (\(request.id))")
        let accepted = try await driver.acceptRideRequest(request.id)
        transcript.note("driver: accepted, ride \(accepted.id)")
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

        let guideRide = GuideRide(rideID: ride.id, driverName: ride.driver.name, vehicle: ride.driver.vehicle ?? "your driver's car",
                                  identity: identity)
        var speech: (any SpeechEngine)?
        do { speech = try EspeakSpeech.shared() } catch { transcript.note("audio: speech is off: \(error.description)") }
        let audio = WalkAudio(speech: speech, sink: sink)
        var walk = GuidedWalk(ride: guideRide, configuration: configuration)
        transcript.note("      time  true     estimate  cue")
        let summary = await walk.run(
            unixTime: { _ in Date().timeIntervalSince1970 },
            onCue: { cue, moment in
                let estimate = moment.estimatedDistance.map { String(format: "%6.2f m", $0) } ?? "     - m"
                transcript.at(moment.time, String(format: "%6.2f m  ", moment.trueDistance) + estimate + "  " + cue.description)
                audio.cue(cue)
            },
            onPulse: { interval, time in audio.pulse(interval, at: time) },
            confirm: { passengerSeen, driverSeen in
                await confirm(rideID: ride.id, passenger: passenger, driver: driver, passengerSeen, driverSeen, at: audio.lastTime)
            })
        audio.finish()
        if let line = audio.failure { transcript.note("audio: \(line)") }
        return summary
    }

    /// Posts the passenger's proof then the driver's (mutual policy). A server that cannot
    /// verify proofs yet (501) gets the operator override instead, and the transcript says so.
    private func confirm(rideID: String, passenger: RideServiceClient, driver: RideServiceClient,
                         _ passengerSeen: TouchObservation, _ driverSeen: TouchObservation?, at time: Double) async -> ProofAnswer {
        do {
            let outcome = try await passenger.submitTouchProof(Self.proof(passengerSeen), rideID: rideID)
            transcript.at(time, "passenger: touch proof posted: \(Self.describe(outcome))")
            if case .accepted(let result) = outcome, result.outcome == .confirmed { return .confirmed }
            guard let driverSeen else {
                transcript.at(time, "driver: did not see the passenger's beacon at touch range; no driver proof")
                return .rejected("your driver's phone did not see the touch")
            }
            let second = try await driver.submitTouchProof(Self.proof(driverSeen), rideID: rideID)
            transcript.at(time, "driver: touch proof posted: \(Self.describe(second))")
            switch (outcome, second) {
            case (_, .accepted(let result)) where result.outcome == .confirmed:
                return .confirmed
            case (.notVerified, _), (_, .notVerified):
                try await server.confirmByOperator(rideID: rideID)
                transcript.at(time, "server: this build answers 501 to touch proofs; ride confirmed by the operator override (admin confirm-ride)")
                return .confirmed
            default:
                return .awaitingCounterpart
            }
        } catch let error as RideClientError {
            transcript.at(time, "touch proof failed: \(error.description)")
            return .rejected(error.description)
        } catch {
            transcript.at(time, "confirmation failed: \(error)")
            return .rejected("\(error)")
        }
    }

    static func proof(_ seen: TouchObservation) -> TouchProof {
        TouchProof(identity: seen.identity, slot: seen.slot, peakRSSI: seen.peakFilteredRSSI, samples: seen.samples,
                   observedAt: Date(timeIntervalSince1970: seen.unixTime))
    }

    static func describe(_ outcome: TouchProofOutcome) -> String {
        switch outcome {
        case .accepted(let result): "\(result.outcome.rawValue) (ride \(result.ride.state.rawValue))"
        case .notVerified(let message): "not verified by this server (\(message))"
        }
    }
}
