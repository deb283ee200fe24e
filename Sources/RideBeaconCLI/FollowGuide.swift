import BeaconCore
import Foundation
import Guide
import GuideAudio
import Phrasebook
import RadioCore
import RideClient
import Synchronization
import VoiceCommands

/// `passenger follow`'s guide on arrival: the radio opened then (none, or one that fails: the
/// no-radio sentence, and the driver asked to come to her, `FollowKerb`), the guide run with
/// the follow's own player, and the keys routed to it while it runs.
///
/// @unchecked Sendable: `voiceInput`, `positions` and `verbose` are set once, before `run`, by the task that owns the follow;
/// the keys, which another task reads, are in a `Mutex`.
final class FollowGuide: @unchecked Sendable {
    let radio: RadioSelection?
    let settings: Settings
    let audioOut: String
    let identityPeriod: Int
    let player: LiveCuePlayer
    /// `--voice-commands`: heard while the guide runs.
    var voiceInput: VoiceInput?
    /// `--position`, `--positions`: her position shared while the guide runs (issue 35).
    var positions = PositionChoice.off
    /// `--verbose`: why the radio did not open, printed as well as the arrival's one sentence.
    var verbose = false
    /// Without a radio: the request that the driver come to her, and the keys then.
    var kerb = FollowKerb()
    /// Opens `radio` (the real radios; a test's own), failing without a word: the arrival says it.
    let openRadio: @Sendable (RadioSelection) async throws -> any Radio
    /// The running guide's keys.
    private let keys = Mutex<AsyncStream<GuideKey>.Continuation?>(nil)

    init(radio: RadioSelection?, settings: Settings, audioOut: String, identityPeriod: Int, player: LiveCuePlayer,
         openRadio: @escaping @Sendable (RadioSelection) async throws -> any Radio = FollowGuide.connect) {
        self.radio = radio
        self.settings = settings
        self.audioOut = audioOut
        self.identityPeriod = identityPeriod
        self.player = player
        self.openRadio = openRadio
    }

    /// The radio, as `openRadio` (LiveScan) opens it but with no line of its own on failure.
    static func connect(_ selection: RadioSelection) async throws -> any Radio {
        if case .sim = selection { StandardError.writeLine(simulatedRadioNote) }
        return try await connectRadio(selection)
    }

    /// The radio opened on arrival by `prepare`, before the arrival is said (nil: none opened).
    private var openedRadio: (any Radio)?
    private var prepared = false

    /// Opens the radio, once, before the arrival is announced (issue 37, 1): the arrival is
    /// then one sentence that is true, the phone guiding or not, instead of "Your phone is
    /// guiding you" followed within a second by a D-Bus error and the no-radio sentence.
    /// The radio's error is not a second sentence: it is printed only with --verbose.
    /// Called by the follow's own task only (as `run` is).
    func prepare() async -> Bool {
        if prepared { return openedRadio != nil }
        prepared = true
        guard let radio else { return false }
        do { openedRadio = try await openRadio(radio) } catch {
            openedRadio = nil
            if verbose { StandardError.writeLine("ridebeacon: \(radio): \(error)") }
        }
        return openedRadio != nil
    }

    /// Passes `key` to the running guide; false when none runs.
    func forward(_ key: GuideKey) -> Bool {
        guard let keys = keys.withLock({ $0 }) else { return false }
        keys.yield(key)
        return true
    }

    /// Runs the guide on the radio `prepare` opened; false when none could be opened (the
    /// arrival's words said so already: then the driver is asked to come to her, issue 37, point 2).
    func run(ride: Ride, client: any RideCommandService, announcer: RideAnnouncer) async -> Bool {
        guard await prepare(), let opened = openedRadio else {
            await kerb.askDriverToCome(ride: ride, client: client, announcer: announcer)
            return false
        }
        let (stream, feed) = AsyncStream<GuideKey>.makeStream()
        keys.withLock { $0 = feed }
        defer { keys.withLock { $0 = nil } }
        let launch = GuideLaunch(client: client, ride: ride, settings: settings, radio: radio ?? .sim, audioOut: audioOut,
                                 fallbackIdentityPeriod: identityPeriod, calibration: Calibration(model: .default), keys: stream,
                                 compass: .auto, openedRadio: opened, sharedPlayer: player, voiceInput: voiceInput,
                                 positions: positions)
        do { try await launch.run() } catch let failure as CommandLineFailure {
            StandardError.writeLine("ridebeacon: guide: \(failure.message)")
        } catch {
            // Quit or cancelled: following goes on, and says how the ride ends.
        }
        return true
    }
}
