import BeaconCore
import Foundation
import Guide
import GuideAudio
import SessionDoubles
import Testing
import VoiceCommands

@Suite struct VoiceCommandTests {
    static let identity = try! RotatingIdentity(rideKey: [UInt8](repeating: 42, count: 32))
    static let ride = GuideRide(rideID: "ride-1", driverName: "Ben", vehicle: "blue Toyota Prius", identity: identity)
    static let base = 1_700_000_010.0

    static func heard(_ path: String, mode: KeywordSpotter.Mode = KeywordSpotter.defaultMode) async throws -> [VoiceCommand] {
        let listener = try VoiceListener(input: .file(path), realTime: false, mode: mode)
        var commands: [VoiceCommand] = []
        for await heard in listener.commands { commands.append(heard.command) }
        return commands
    }

    /// "Where is my car", spoken by espeak-ng (recorded in fixtures/voice, whose make.sh says why
    /// and which voice) into the recogniser, reaches the guide as the "where is my driver" key,
    /// and the guide answers with the driver's distance.
    @Test func whereIsTheCarSpokenIsAnsweredByTheGuide() async throws {
        let path = try SpokenFixture.wav("where-is-my-car")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let commands = try await Self.heard(path)
        #expect(commands == [.whereIsCar])

        var core = GuideCore(ride: Self.ride, verbosity: .brief)
        _ = core.start(time: 0)
        _ = core.handle(.arrived(time: 0))
        var time = 0.0
        while time < 3 {
            time += 0.1
            let unix = Self.base + time
            let beacon = Self.identity.identity(of: .driver, slot: Self.identity.slot(at: unix)).beacon(measuredPower: -59)
            _ = core.handle(.sighting(time: time, unixTime: unix, rssi: -70, beacon: beacon))
            _ = core.handle(.tick(time: time))
        }
        var dialogue = VoiceDialogue()
        var answers: [Utterance] = []
        for command in commands {
            for outcome in dialogue.heard(command, at: time) {
                guard case .key(let key) = outcome else { continue }
                for case .cue(let cue) in core.handle(.key(time: time, key)) {
                    if case .speech(let utterance) = cue.sound { answers.append(utterance) }
                }
            }
        }
        #expect(answers.count == 1)
        #expect(answers.first?.keys == [.guideWhereIsDriver])
        #expect(answers.first?.text.hasPrefix("Your driver is ") == true)
    }

    /// Speech that holds no command (and the quiet around it) triggers nothing.
    @Test func otherSpeechTriggersNothing() async throws {
        let path = try SpokenFixture.wav("other-speech")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try await Self.heard(path).isEmpty)
    }

    /// Each mode, the default and the others: the recorded "where is my car" is heard as that
    /// command and nothing else, and the recorded speech holding no command triggers nothing.
    /// (The grammar mode decodes each stretch of speech against the commands and a garbage loop
    /// of phones, and takes a command only when it is the whole hypothesis and confident.)
    @Test(arguments: [KeywordSpotter.Mode.keywords, .grammar])
    func eachModeHearsTheCommandAndNotOtherSpeech(mode: KeywordSpotter.Mode) async throws {
        let command = try SpokenFixture.wav("where-is-my-car")
        defer { try? FileManager.default.removeItem(atPath: command) }
        #expect(try await Self.heard(command, mode: mode) == [.whereIsCar])
        let other = try SpokenFixture.wav("other-speech")
        defer { try? FileManager.default.removeItem(atPath: other) }
        #expect(try await Self.heard(other, mode: mode).isEmpty)
    }

    /// A command the audio ends on, with no silence after it, is still heard: the grammar mode
    /// decides at the end of each utterance, and `finish` ends the one under way.
    @Test func aCommandTheAudioEndsOnIsHeard() throws {
        let path = try SpokenFixture.wav("where-is-my-car")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let samples = try VoiceAudio.read(path)
        let last = try #require(samples.lastIndex { abs(Int($0)) > 1_000 })
        let spotter = try KeywordSpotter(mode: .grammar)
        let heard = spotter.process(Array(samples[...last])) + spotter.finish()
        #expect(heard.map(\.command) == [.whereIsCar])
        #expect(spotter.finish().isEmpty)
    }

    /// The grammar mode's grammar: every command's words lead from the start to the end, and
    /// once a garbage phone is taken no command word can follow (a command is heard only when it
    /// is the whole utterance).
    @Test func theGrammarIsACommandOrGarbageAlone() throws {
        let lines = KeywordSpotter.fsg(garbageWeight: KeywordSpotter.Grammar.standard.garbageWeight).split(separator: "\n")
        func value(_ key: String) throws -> Int { try #require(lines.first { $0.hasPrefix(key + " ") }.flatMap { Int($0.split(separator: " ")[1]) }) }
        let start = try value("START_STATE"), final = try value("FINAL_STATE")
        let arcs = lines.filter { $0.hasPrefix("TRANSITION ") }.map { $0.split(separator: " ").map(String.init) }
            .map { (from: Int($0[1])!, to: Int($0[2])!, word: $0.count > 4 ? $0[4] : nil) }
        for command in VoiceCommand.allCases {
            var state: Int? = start
            for word in command.phrase.split(separator: " ") {
                state = arcs.first { $0.from == state && $0.word == String(word) }?.to
            }
            #expect(state == final, "\(command.phrase)")
        }
        let isGarbage = { (word: String?) in word?.hasPrefix("gbg_") == true }
        let garbageStates = Set(arcs.filter { isGarbage($0.word) }.map(\.to))
        let commandWordsAfterGarbage = arcs.filter { garbageStates.contains($0.from) && $0.word != nil && !isGarbage($0.word) }
        #expect(!garbageStates.isEmpty)
        #expect(commandWordsAfterGarbage.isEmpty)
        let garbageWords = Set(arcs.compactMap(\.word).filter { $0.hasPrefix("gbg_") })
        #expect(garbageWords.count == KeywordSpotter.phones.count)
    }

    /// "Cancel my ride" only asks; the ride is cancelled only by "yes cancel my ride" within the
    /// window, never by a "yes cancel my ride" alone or one too late (then the ride is kept).
    @Test func cancelNeedsASpokenYes() {
        var dialogue = VoiceDialogue()
        #expect(dialogue.heard(.yesCancel, at: 0) == [])
        let asked = dialogue.heard(.cancelRide, at: 1)
        #expect(asked == [.say(VoiceSentences().confirmCancel)])
        #expect(!asked.contains(.cancelRide))
        #expect(dialogue.heard(.yesCancel, at: 5) == [.say(VoiceSentences().cancelling), .cancelRide])

        var late = VoiceDialogue()
        _ = late.heard(.cancelRide, at: 0)
        #expect(late.expire(at: 5) == [])
        #expect(late.expire(at: 11) == [.say(VoiceSentences().kept)])
        #expect(late.heard(.yesCancel, at: 12) == [])
    }

    @Test func commandsMapToTheGuideKeys() {
        var dialogue = VoiceDialogue()
        #expect(dialogue.heard(.repeatLast, at: 0) == [.key(.repeatLast)])
        #expect(dialogue.heard(.whereIsCar, at: 0) == [.key(.whereIsDriver)])
        #expect(dialogue.heard(.sound, at: 0) == [.key(.soundLocator)])
        #expect(dialogue.heard(.help, at: 0) == [.say(VoiceSentences().help)])
    }

    /// No command is a single word (keyword spotting finds a short word in almost any speech:
    /// the phrases have three syllables or more), and help lists every one of them.
    @Test func phrasesAreLongAndHelpListsThem() {
        for command in VoiceCommand.allCases {
            #expect(command.phrase.split(separator: " ").count >= 2, "\(command.phrase)")
            #expect(VoiceCommand(phrase: command.phrase.uppercased()) == command)
        }
        let help = VoiceSentences().help.lowercased()
        for command in VoiceCommand.allCases where command != .yesCancel { #expect(help.contains(command.phrase), "\(command.phrase)") }
        #expect(VoiceSentences().confirmCancel.lowercased().contains("yes, cancel my ride"))
    }

    @Test func aMissingModelIsSaidPlainly() {
        #expect(throws: VoiceError.self) { try KeywordSpotter(model: "/nonexistent/model") }
    }
}
