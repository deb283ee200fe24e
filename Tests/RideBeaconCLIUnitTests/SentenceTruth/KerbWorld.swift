import BeaconCore
import Foundation
import Guide
import GuideAudio
import Phrasebook
import RadioCore
@testable import RideBeaconCLI
import RideClient
import RideSession
import SessionDoubles
import Synchronization

/// Ana's ride with Ben at the kerb, both devices' flows in process: `passenger follow` and
/// `driver arrive` over one InMemoryRideService (the server's rules), each through its own
/// ScriptedRideCommands. What the service takes is recorded on the timeline as it is
/// published (`InMemoryRideService.observe`), before either device can hear of it, then
/// relayed to her follow as the server's event stream would bring it; what the test does as
/// the service or a third party (an outage, a dispatcher's cancellation) is recorded first too.
///
/// Her device lacks a radio, an audio player, desktop notifications and a microphone (for
/// `--voice-commands`); his has a scripted radio and no audio.
final class KerbWorld: Sendable {
    let timeline = Timeline()
    let rides: InMemoryRideService
    let passengerService: ScriptedRideCommands
    let driverService: ScriptedRideCommands
    let claims: KerbClaims
    let passengerLanguage: Language
    let driverLanguage: Language
    let radio = ScriptedRadio(clock: VirtualClock(unixTime: Script.start.timeIntervalSince1970))
    /// The driver's keys: y / n / c / l / x, and Enter.
    private let driverKeys: DriverKeys
    private let pressKey: AsyncStream<DriverKey>.Continuation
    private let pressEnter: AsyncStream<Void>.Continuation
    /// The next event's sequence number on her stream, and who is cancelling now.
    private let relay = Mutex((sequence: 3, cancelling: Party?.none))

    init(passenger: Language, driver: Language) throws {
        passengerLanguage = passenger
        driverLanguage = driver
        claims = KerbClaims(passenger: Phrasebook(passenger), driver: Phrasebook(driver))
        let identity = try RotatingIdentity(rideKey: Script.rideKey, period: 60)
        rides = InMemoryRideService(rideID: "ride-1", identity: identity, state: .accepted, clock: SystemClock())
        passengerService = ScriptedRideCommands(session: rides.passenger, rides: [Script.ride(.accepted)])
        driverService = ScriptedRideCommands(session: rides.driver, rides: [Script.ride(.accepted)], language: driver.rawValue)
        let (others, pressKey) = AsyncStream<DriverKey>.makeStream()
        let (enter, pressEnter) = AsyncStream<Void>.makeStream()
        driverKeys = DriverKeys(enter: enter, others: others)
        self.pressKey = pressKey
        self.pressEnter = pressEnter
        timeline.happened(.accepted)
        rides.observe { [self] update in relayed(update) }
        // His arrival goes through the service (the ride moves, and she hears of it).
        driverService.onArrive { [rides] _ in
            rides.move(to: .arrived)
            return Script.ride(.arrived)
        }
        // Her follow's requests (a sound, that he come to her) reach his device through the service.
        passengerService.state.withLock { state in
            state.onRequestLocator = { [rides] rideID in _ = await rides.passenger.requestLocator(rideID: rideID) }
            state.forwardsComeRequests = true
        }
    }

    // MARK: The two flows

    /// `passenger follow` on her device: what it opens at its start (no audio player, no
    /// notifications, no microphone for --voice-commands), then her ride, with a radio that
    /// cannot be opened. Ends when the ride completes or is cancelled.
    func follow() -> Task<Void, any Error> {
        for part in [Hardware.audio, .notifications, .microphone, .radio] { timeline.happened(.lacks(part)) }
        return Task { [self] in
            try await timeline.record(.passenger) {
                let device = FollowOutputs.Device(environment: ["PATH": "/nonexistent-ridebeacon-path"],
                                                  speech: { throw SpeechError("no espeak-ng data") },
                                                  notifications: { throw KerbWorldError("no session bus") },
                                                  hasMicrophone: { false })
                let outputs = try await FollowOutputs.open(audioOut: "auto", noNotifications: false, voice: .standard,
                                                           voiceInput: .microphone, book: claims.passenger, verbose: false, device: device)
                let guide = FollowGuide(radio: try RadioSelection(parsing: "bluez"), settings: .standard, audioOut: "auto",
                                        identityPeriod: 60, player: outputs.player) { _ in
                    throw KerbWorldError("org.freedesktop.DBus.Error.NoServer: Failed to connect to socket /run/dbus/system_bus_socket")
                }
                guide.voiceInput = outputs.voiceInput
                defer { spoken.withLock { $0 = outputs.player.log.compactMap { if case .speech(let text) = $0.kind { text } else { nil } } } }
                try await PassengerFollowCommand.followEvents(of: Script.ride(.accepted), client: passengerService,
                                                              announcer: outputs.announcer, guide: guide)
                try outputs.player.stop()
            }
        }
    }

    /// What her device was asked to say aloud (each should be a printed line, cleaned for speech).
    var spokenByPassenger: [String] { spoken.withLock { $0 } }
    private let spoken = Mutex<[String]>([])

    /// `driver arrive K7RX` on his device (sounds he may be asked for: horn and voice). A
    /// failure is printed as `main` prints it.
    func arrive() throws -> Task<Void, Never> {
        let command = try DriverArriveCommand.parse(["K7RX", "--radio", "sim", "--audio-out", "none", "--positions", "off",
                                                     "--locator-sounds", "horn,voice"])
        var device = DriverArriveCommand.Device.process
        device.settings = { nil }
        device.keys = Self.always(driverKeys)
        device.interrupted = { try? await Task.sleep(for: .seconds(86_400)) }
        device.openRadio = { [radio] _ in radio }
        device.notifications = { nil }
        return Task { [self, device] in
            await timeline.record(.driver) {
                do {
                    try await command.meet(client: driverService, radio: .sim, touch: Calibration(model: .default), device: device)
                } catch let failure as CommandLineFailure {
                    StandardError.writeLine("ridebeacon: \(failure.message)")
                } catch {
                    StandardError.writeLine("ridebeacon: \(error)")
                }
            }
        }
    }

    // MARK: What the others do

    /// The driver presses a key (y, n, c, x).
    func driverPresses(_ key: DriverKey) { pressKey.yield(key) }

    /// The server stops answering her device's stream, then (`back`) answers again.
    func outage() {
        timeline.happened(.serviceLost)
        passengerService.send(.interrupted(.notAnswering("connection refused"), retryingIn: .seconds(1)))
    }

    func recovery() {
        timeline.happened(.serviceBack)
        passengerService.send(.connected)
    }

    /// The ride is confirmed (the touch, or an operator), then completed.
    func confirm() { rides.move(to: .confirmed) }
    func complete() { rides.move(to: .completed) }

    /// `party` cancels the ride (a dispatcher with a reason).
    func cancel(by party: Party) {
        relay.withLock { $0.cancelling = party }
        rides.move(to: .cancelled)
    }

    // MARK: The service's stream, relayed to her follow

    /// Called with the service's lock held: records the fact, then sends her stream the event.
    private func relayed(_ update: RideUpdate) {
        let fact: Fact?
        var state = RideState.arrived
        var kind = RideEventKind.stateChanged
        var detail: String?
        var actor = "ben"
        switch update {
        case .arrived: fact = .arrived
        case .confirmed: (fact, state) = (.confirmed, .confirmed)
        case .completed: (fact, state) = (.completed, .completed)
        case .cancelled:
            let party = relay.withLock { $0.cancelling } ?? .dispatcher
            (fact, state) = (.cancelled(by: party), .cancelled)
            switch party {
            case .passenger: actor = "ana"
            case .driver: actor = "ben"
            case .dispatcher: (actor, detail) = ("dispatcher-7", "driver unwell")
            }
        case .locatorRequested: (fact, kind) = (.locatorRequested, .locatorRequested)
        case .locatorAnswered(let sound, _): (fact, kind, detail) = (.locatorAnswered(sound), .locatorAnswered, sound.rawValue)
        case .meeting(let move, _): (fact, kind) = (move == .coming ? .driverComing : .carAcross, move.eventKind)
        case .comeRequested: (fact, kind) = (.comeRequested, .comeRequested)
        case .comeAnswered(let answer, _):
            (fact, kind, detail) = (.comeAnswered(answer), answer.eventKind, answer == .received ? nil : answer.rawValue)
        default: fact = nil
        }
        guard let fact else { return }
        timeline.happened(fact)
        if kind == .stateChanged {
            for service in [passengerService, driverService] { service.state.withLock { $0.rides = [Script.ride(state)] } }
        }
        let sequence = relay.withLock { relay in
            defer { relay.sequence += 1 }
            return relay.sequence
        }
        passengerService.send(Script.event(state, kind: kind, by: actor, detail: detail, sequence: sequence, seconds: Double(sequence) * 10))
    }

    /// Every violation of the claim table on what happened so far, with the whole timeline.
    func violations() -> [Violation] { claims.check(timeline.all) }
}

extension KerbWorld {
    /// The same value, whatever the device's opener is given (the keys' opener takes the
    /// driver's phrasebook on some versions of `Device`, nothing on others).
    static func always<T: Sendable>(_ value: T) -> @Sendable () -> T { { value } }
    static func always<A, T: Sendable>(_ value: T) -> @Sendable (A) -> T { { _ in value } }
}

struct KerbWorldError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
