import BeaconCore
import Guide
import Phrasebook
import Testing

/// Issue 25: the guide's opening is one consistent sequence, and confirming is named for the device.
@Suite struct GuideOpeningTests {
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 42, count: 32))
    static let ride = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: identity)
    static let base = 1_700_000_010.0

    static func said(_ actions: [GuideAction]) -> [String] {
        actions.compactMap { if case .cue(let cue) = $0, case .speech(let utterance) = cue.sound { utterance.text } else { nil } }
    }

    static func sighting(_ core: inout GuideCore, at time: Double, rssi: Double) -> [GuideAction] {
        let unix = base + time
        let beacon = identity.identity(of: .driver, slot: identity.slot(at: unix)).beacon(measuredPower: -59)
        return core.handle(.sighting(time: time, unixTime: unix, rssi: rssi, beacon: beacon))
    }

    @Test func anArrivedDriverIsNotWaitedForAndNoSoundIsPromisedBeforeASignal() {
        var core = GuideCore(ride: Self.ride, verbosity: .brief)
        var said = Self.said(core.start(time: 0, arrived: true) + core.handle(.arrived(time: 0)))
        #expect(said == ["Your driver has arrived. Ben, blue Toyota Prius. Searching for the signal; stay where you are."])
        said = Self.said(Self.sighting(&core, at: 1, rssi: -75))
        #expect(said.first == "Signal found. Follow the sound.")
        #expect(!said.contains { $0.contains("Searching") })
    }

    @Test func aSignalHeardBeforeTheArrivalIsFollowedAtOnce() {
        var core = GuideCore(ride: Self.ride, verbosity: .brief)
        var actions = core.start(time: 0)
        for n in 1...10 { actions += Self.sighting(&core, at: Double(n) * 0.1, rssi: -75) }
        let said = Self.said(actions + core.handle(.arrived(time: 1.05)))
        #expect(said.first == "Waiting for your driver.")
        #expect(said.contains("Your driver has arrived. Ben, blue Toyota Prius. Follow the sound."))
        #expect(!said.contains { $0.contains("Signal found") || $0.contains("Searching") })
    }

    @Test func confirmingIsNamedForTheDevice() {
        func touchSentence(_ control: PhraseID, _ phrases: PhraseTable = .english) -> String? {
            var core = GuideCore(ride: Self.ride, verbosity: .brief, phrases: phrases)
            core.confirmControl = control
            var actions = core.start(time: 0, arrived: true) + core.handle(.arrived(time: 0))
            actions += core.handle(.driverFeltTouch(time: 0, from: 0, until: .greatestFiniteMagnitude))
            for n in 1...30 { actions += Self.sighting(&core, at: Double(n) * 0.1, rssi: -30) }
            return Self.said(actions).first { $0.hasPrefix("Touch detected") || $0.hasPrefix("Contacto") }
        }
        #expect(touchSentence(.guideConfirmEnter) == "Touch detected. Press Enter to confirm your ride.")
        #expect(touchSentence(.guideConfirmButton) == "Touch detected. Press the Confirm button to confirm your ride.")
        #expect(touchSentence(.guideConfirmButton, .table(for: "es")) == "Contacto detectado. Pulsa el botón Confirmar para confirmar tu viaje.")
    }
}
