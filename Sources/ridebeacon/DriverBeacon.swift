import BeaconCore
import BlueZ
import Foundation
import RideClient
#if canImport(Glibc)
import Glibc
#endif

/// The driver's side at the kerb: advertise the rotating identity, watch for the passenger's
/// beacon at touch range and prove it, and follow the ride until it is confirmed or cancelled.
struct DriverBeacon: Sendable {
    enum Outcome: Equatable { case confirmed, completed, cancelled, interrupted, failed(String) }

    let client: RideServiceClient
    let rideID: String
    let radio: any Radio
    let identity: RotatingIdentity
    let calibration: Calibration
    /// Interval, type and measured power; the frame itself is replaced every slot.
    let advertisement: BeaconAdvertisement
    let autoConfirm: Bool

    func run() async -> Outcome {
        let touches = TouchLedger()
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { await advertise() }
            group.addTask { await watchForTouch(touches) }
            group.addTask { await followRide() }
            group.addTask { await Signals.next() }
            if !autoConfirm {
                group.addTask { await confirmOnEnter(touches) }
            }
            var outcome: Outcome = .interrupted
            for await result in group {
                if let result { outcome = result; break }
            }
            group.cancelAll()
            return outcome
        }
    }

    // MARK: advertising

    private func frame(slot: UInt64) -> IBeacon {
        identity.identity(of: .driver, slot: slot).beacon(measuredPower: advertisement.beacon.measuredPower)
    }

    private func announce(_ slot: UInt64) {
        let id = identity.identity(of: .driver, slot: slot)
        StandardError.writeLine("advertising driver identity \(id.uuid.uuidString) major \(id.major) minor \(id.minor) "
            + "slot \(slot) period \(identity.period) s every \(advertisement.intervalMilliseconds) ms")
    }

    /// Advertises the current slot's identity and replaces it at every slot boundary. Returns
    /// only to report a radio that cannot advertise at all.
    private func advertise() async -> Outcome? {
        var slot = identity.slot(at: Date().timeIntervalSince1970)
        var first = advertisement
        first.beacon = frame(slot: slot)
        do {
            try await radio.startAdvertising(first)
        } catch {
            return .failed("cannot advertise: \(error)")
        }
        announce(slot)
        while !Task.isCancelled {
            let boundary = Double(slot + 1) * Double(identity.period)
            let wait = boundary - Date().timeIntervalSince1970
            if wait > 0 {
                do { try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) } catch { return nil }
            }
            // Never behind the clock, never the same identity twice (a sleep that ends a hair early).
            slot = max(slot + 1, identity.slot(at: Date().timeIntervalSince1970))
            while !Task.isCancelled {
                do {
                    try await radio.replaceAdvertisedBeacon(frame(slot: slot))
                    break
                } catch {
                    // The radio reconnects by itself and re-applies the advertisement; keep the identity current.
                    StandardError.writeLine("ridebeacon: radio: \(error); retrying")
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            announce(slot)
        }
        return nil
    }

    // MARK: touch

    private func watchForTouch(_ touches: TouchLedger) async -> Outcome? {
        var matcher = IdentityMatcher(identity: identity, lookingFor: .passenger)
        var ranger = Ranger(calibration: calibration)
        let start = ContinuousClock.now
        do {
            for try await event in radio.scan() {
                switch event {
                case .lost(let loss):
                    StandardError.writeLine("ridebeacon: radio lost: \(loss); reconnecting")
                case .restored:
                    StandardError.writeLine("ridebeacon: radio restored")
                case .sighting(let sighting):
                    guard let beacon = sighting.beacon, let rssi = sighting.rssi else { continue }
                    let unix = Double(sighting.unixMicroseconds) / 1e6
                    guard let slot = matcher.match(beacon, at: unix) else { continue }
                    let elapsed = sighting.receivedAt - start
                    let time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    let estimate = ranger.update(time: time, rssi: Double(rssi))
                    guard estimate.touch else {
                        await touches.release()
                        continue
                    }
                    let isNew = await touches.record(identity: BeaconIdentity(beacon), slot: slot,
                                                     level: estimate.filteredRSSI, at: Date(timeIntervalSince1970: unix))
                    if isNew {
                        Say.line(autoConfirm ? "Touch detected. Confirming." : "Touch detected. Press Enter to confirm the ride.")
                        if autoConfirm { await submit(touches) }
                    } else if await touches.resendDue(now: Date()) {
                        await submit(touches, repeating: true)
                    }
                }
            }
        } catch {
            return .failed("radio: \(error)")
        }
        return nil
    }

    private func confirmOnEnter(_ touches: TouchLedger) async -> Outcome? {
        for await _ in KeyPresses.enter() {
            await submit(touches)
        }
        return nil
    }

    /// Posts the latest touch as the driver's proof, if it is fresh enough for the server. A
    /// repeat (the touch goes on, the passenger has not confirmed yet) speaks only on news.
    private func submit(_ touches: TouchLedger, repeating: Bool = false) async {
        guard let proof = await touches.proofToSend(now: Date()) else {
            Say.line("No touch in the last few seconds. Touch the devices together again.")
            return
        }
        do {
            switch try await client.submitTouchProof(proof, rideID: rideID) {
            case .accepted(let result):
                if result.outcome == .confirmed {
                    Say.line("Touch proof accepted.")
                } else if !repeating {
                    Say.line("Touch proof accepted. Waiting for the passenger's.")
                }
            case .notVerified(let message):
                StandardError.writeLine("ridebeacon: the ride service cannot verify touch proofs yet (\(message)); the operator can confirm the ride")
            }
        } catch {
            await touches.stopResending()
            StandardError.writeLine("ridebeacon: touch proof not accepted: \(describe(error, server: client.server))")
        }
    }

    // MARK: ride state

    private func followRide() async -> Outcome? {
        do {
            for try await update in client.rideEvents(rideID) {
                switch update {
                case .interrupted: StandardError.writeLine(RideServiceMessages.retrying)
                case .connected: continue
                case .event(let event):
                    switch event.state {
                    case .confirmed: return .confirmed
                    case .completed: return .completed
                    case .cancelled: return .cancelled
                    case .requested, .accepted, .arrived: continue
                    }
                }
            }
            return nil
        } catch let error as RideClientError {
            return .failed(describe(error, server: client.server))
        } catch {
            return .failed(String(describing: error))
        }
    }
}

/// What the touch detector saw, between the scanner and whoever sends the proof.
actor TouchLedger {
    private struct Touch {
        var identity: BeaconIdentity
        var slot: UInt64
        var peak: Double
        var samples: Int
        var last: Date
    }

    /// Proofs older than this are refused by the server (10 s); keep a margin for the trip.
    static let freshness: TimeInterval = 8
    /// Under the mutual policy the server pairs the two sides' proofs within 10 s of each other;
    /// repeating ours this often while the devices still touch keeps one inside that window
    /// whenever the passenger confirms.
    static let resendInterval: TimeInterval = 5
    private var current: Touch?
    private var touching = false
    /// Set once the user has confirmed this touch (Enter, or --auto-confirm).
    private var confirming = false
    private var sentAt: Date?

    /// Adds a touching sample; true when it starts a new touch.
    func record(identity: BeaconIdentity, slot: UInt64, level: Double, at time: Date) -> Bool {
        let isNew = !touching
        var touch = isNew ? Touch(identity: identity, slot: slot, peak: level, samples: 0, last: time) : current
            ?? Touch(identity: identity, slot: slot, peak: level, samples: 0, last: time)
        if isNew {
            confirming = false
            sentAt = nil
        }
        touching = true
        touch.identity = identity
        touch.slot = slot
        touch.peak = max(touch.peak, level)
        touch.samples += 1
        touch.last = time
        current = touch
        return isNew
    }

    func release() { touching = false }

    /// The latest touch as a proof, if fresh; from now on the touch counts as confirmed.
    func proofToSend(now: Date) -> TouchProof? {
        guard let touch = current, now.timeIntervalSince(touch.last) <= Self.freshness else { return nil }
        confirming = true
        sentAt = now
        return TouchProof(identity: touch.identity, slot: touch.slot, peakRSSI: touch.peak,
                          samples: max(1, touch.samples), observedAt: touch.last)
    }

    /// True when a confirmed touch still going on has not been proven for `resendInterval`.
    func resendDue(now: Date) -> Bool {
        guard confirming, touching, let sentAt else { return false }
        return now.timeIntervalSince(sentAt) >= Self.resendInterval
    }

    /// A refused proof is not repeated; another Enter may try again while the touch is fresh.
    func stopResending() { confirming = false }
}

/// Enter presses on standard input, read on a thread of their own (reading blocks).
enum KeyPresses {
    static func enter() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let reader = Thread {
            while readLine() != nil { continuation.yield() }
            continuation.finish()
        }
        reader.start()
        return stream
    }
}

/// SIGINT and SIGTERM as an awaitable event, so commands can stop advertising before exiting.
enum Signals {
    static func next() async -> DriverBeacon.Outcome? {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (signals, continuation) = AsyncStream<Void>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        for await _ in signals { return .interrupted }
        return nil
    }
}
