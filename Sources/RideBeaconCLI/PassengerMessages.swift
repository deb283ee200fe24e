import ArgumentParser
import BlueZ
import Foundation
import Phrasebook
import RideClient

/// `ridebeacon passenger message`: tell your driver something once he accepted, a preset in
/// one word or your own words on one line (issue 25).
struct PassengerMessageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message",
        abstract: "Tell your driver something: a ready message or your own words (after a driver accepted).",
        discussion: """
            Ready messages (--preset NAME): \(MessagePreset.allCases.map { "\($0.rawValue) (\"\($0.sentence)\")" }.joined(separator: ", ")). \
            Or your own words as TEXT: one line, at most \(PassengerMessage.maxTextLength) characters. \
            Your driver's device says it aloud and shows it; dispatchers see it too. \
            Without --ride, your accepted or arrived ride.
            """)

    @Argument(help: ArgumentHelp("Your own words (instead of --preset).", valueName: "TEXT"))
    var text: String?
    @Option(help: ArgumentHelp("A ready message: \(MessagePreset.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "NAME"))
    var preset: String?
    @Option(help: ArgumentHelp("The ride's short code (default: your accepted or arrived ride).", valueName: "RIDE"))
    var ride: String?
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        switch (text, preset) {
        case (nil, nil):
            throw ValidationError("Say what to tell your driver: your own words, or --preset NAME (one of \(MessagePreset.allCases.map(\.rawValue).joined(separator: ", "))).")
        case (.some, .some):
            throw ValidationError("Give either your own words or --preset, not both.")
        case (nil, let preset?):
            guard MessagePreset(rawValue: preset) != nil else {
                throw ValidationError("There is no ready message called \"\(preset)\"; choose one of \(MessagePreset.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
        case (let text?, nil):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw ValidationError("The message is empty; say something, or use --preset.") }
            guard trimmed.unicodeScalars.count <= PassengerMessage.maxTextLength else {
                throw ValidationError("The message is \(trimmed.unicodeScalars.count) characters long; keep it to \(PassengerMessage.maxTextLength).")
            }
            guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw ValidationError("The message must be one line without control characters.")
            }
        }
    }

    func run() async throws {
        try await withService(service) { client in
            var target = ride
            if target == nil {
                guard let current = try await client.allRides().last(where: { $0.state == .accepted || $0.state == .arrived }) else {
                    throw CommandLineFailure(await PersonalBook.book(using: client)(.cliNoAcceptedRideForMessages))
                }
                target = current.id
            }
            let message: NewPassengerMessage = if let preset, let chosen = MessagePreset(rawValue: preset) {
                NewPassengerMessage(preset: chosen)
            } else {
                NewPassengerMessage(text: (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let sent = try await client.sendMessage(target!, message)
            Say.line(MessageWords.sent(sent))
        }
    }
}

/// The sentences about messages (issue 25), in the phrasebook's language; a preset is said
/// in the hearer's language, her own words as she wrote them.
enum MessageWords {
    static func sent(_ message: PassengerMessage, in book: Phrasebook = .english) -> String {
        book(.messageSent, ["text": .text(text(message, in: book))])
    }

    /// What the driver hears and reads: "Message from Ana: I have a guide dog."
    static func heard(_ message: PassengerMessage, from passenger: String, in book: Phrasebook = .english) -> String {
        book(.messageHeard, ["name": .text(passenger), "text": .text(text(message, in: book))])
    }

    static func text(_ message: PassengerMessage, in book: Phrasebook) -> String {
        guard let preset = message.preset else { return message.text }
        return switch preset {
        case .atMainEntrance: book(.messagePresetAtMainEntrance)
        case .guideDog: book(.messagePresetGuideDog)
        case .hardOfHearing: book(.messagePresetHardOfHearing)
        case .waitingOutside: book(.messagePresetWaitingOutside)
        case .needMoreTime: book(.messagePresetNeedMoreTime)
        case .pleaseCallOut: book(.messagePresetPleaseCallOut)
        case .wheelchair: book(.messagePresetWheelchair)
        }
    }
}

/// The driver's device while at the kerb: every message the passenger sends is printed, said
/// and shown as a desktop notification (once each; the stream's replay brings earlier ones, said
/// once at the start).
enum DriverMessages {
    /// Runs until cancelled.
    static func follow(rideID: String, passenger: String, client: any RideCommandService, book: Phrasebook = .english,
                       notifications: DesktopNotifications?, say: @escaping @Sendable (String) -> Void) async {
        var heard = Set<Int64>()
        do {
            for try await update in client.rideEvents(rideID, after: nil) {
                guard case .event(let event) = update, let message = event.passengerMessage, heard.insert(event.id).inserted else { continue }
                let words = MessageWords.heard(message, from: passenger, in: book)
                say(words)
                if let notifications {
                    _ = try? await notifications.notify(summary: SinkText.notificationSummary(book(.messageHeardSummary, ["name": .text(passenger)])),
                                                        body: SinkText.notificationBody(MessageWords.text(message, in: book)))
                }
            }
        } catch {}
        await notifications?.close()
        // The stream ended (the ride is over): nothing more to hear, the session decides the end.
        try? await Task.sleep(for: .seconds(365 * 86_400))
    }
}
