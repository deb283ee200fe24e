import ArgumentParser
import Foundation
import Phrasebook
import RideClient

/// The one place every failure of a command becomes one sentence a person can act on (issue
/// 25). The ride service's code and field stay available: with `--verbose` they follow the
/// sentence in brackets. Used by `withService` (the ride service's answers) and by
/// `RideBeacon.main` (everything else a command throws, and ArgumentParser's own messages).
enum ErrorWords {
    // MARK: The ride service

    /// In `book`'s language (`PersonalBook.current` from the commands). The service's own
    /// words are English: English says them, the other languages say the refusal by its code
    /// and give the service's words only with `--verbose`.
    static func sentence(_ error: RideClientError, server: String, verbose: Bool = false, in book: Phrasebook = .english) -> String {
        let base: String
        let at: [String: PhraseValue] = ["server": .text(server)]
        switch error {
        case .notAnswering: base = book(.errorNotAnswering, at)
        case .unreachable: base = book(.errorUnreachable, at)
        case .timeout: base = book(.errorTimeout, at)
        case .serverFailure(let problem):
            base = problem.retryAfter.map { book(.errorTroubleSeconds, ["seconds": .count($0)]) } ?? book(.errorTrouble)
        case .rejected(let problem):
            base = sentence(problem, in: book)
        case .invalidResponse:
            base = book(.errorInvalidResponse)
        case .invalidConfiguration(let message):
            base = make(message, in: book)
        case .cancelled:
            base = book(.errorStopped)
        }
        guard verbose else { return base }
        switch error {
        case .rejected(let problem), .serverFailure(let problem):
            return base + " " + code(problem) + (book.language == .en || problem.message.isEmpty ? "" : " (\(problem.message))")
        case .notAnswering(let reason), .unreachable(let reason), .timeout(let reason), .invalidResponse(let reason):
            return base + " (\(reason))"
        default: return base
        }
    }

    /// `--json-errors`: `{"error":{"sentence":…,"code":…,"field":…,"status":…}}` (the code, field
    /// and status when the ride service refused or failed).
    static func json(_ sentence: String, _ problem: APIProblem?) -> String {
        var error: [String: Any] = ["sentence": sentence]
        if let problem {
            error["code"] = problem.code.rawValue
            error["status"] = problem.status
            if let field = problem.field { error["field"] = field }
        }
        let data = (try? JSONSerialization.data(withJSONObject: ["error": error], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// "(invalid_field, field accessibilityNotes, HTTP 400)"
    static func code(_ problem: APIProblem) -> String {
        "(" + ([problem.code.rawValue] + (problem.field.map { ["field \($0)"] } ?? []) + ["HTTP \(problem.status)"]).joined(separator: ", ") + ")"
    }

    /// A refusal as a sentence: the field's name in words, the service's reason, what to do.
    static func sentence(_ problem: APIProblem, in book: Phrasebook = .english) -> String {
        var message = problem.message
        // The service writes "accessibilityNotes: must not …"; the field is said in words instead.
        var namedField: String?
        if let field = problem.field, message.hasPrefix(field + ": ") {
            message.removeFirst(field.count + 2)
            namedField = field
        }
        switch problem.code.rawValue {
        case "unauthenticated", "token_revoked", "token_expired":
            return book(.errorSignIn)
        case "forbidden", "not_your_ride":
            return book.language == .en ? make(detailed(book(.errorForbidden), message), in: book) : book(.errorForbidden)
        case "not_found":
            // "ride 7RWR not found": no such ride or request, or not one of yours.
            let found = book.language == .en && !message.isEmpty ? make(message, in: book) : book(.errorNotFound)
            return found + " " + book(.errorCheckCode)
        case "rate_limited":
            return problem.retryAfter.map { book(.errorTooManyTriesSeconds, ["seconds": .count($0)]) } ?? book(.errorTooManyTries)
        default:
            break
        }
        guard book.language != .en || message.isEmpty else {
            return make(namedField.map { "\(fieldWords($0, in: book)) \(message)" } ?? message, in: book)
        }
        if let field = problem.field ?? namedField {
            var words = fieldWords(field, in: book)
            if let first = words.first { words = first.lowercased() + words.dropFirst() }
            return book(.errorFieldRefused, ["field": .text(words)])
        }
        return book(refusal(problem.code.rawValue))
    }

    /// A refusal's sentence by its code, where the service's own words are not said.
    static func refusal(_ code: String) -> PhraseID {
        switch code {
        case "invalid_json", "invalid_parameter", "invalid_request", "invalid_field", "body_too_large", "invalid_form",
             "idempotency_key_reused", "http_error":
            .errorRefusedInput
        case "illegal_transition", "wrong_state", "no_change", "nothing_to_answer", "stale_proof", "stale_slot",
             "wrong_identity", "replayed_proof":
            .errorWrongState
        case "already_taken": .errorAlreadyTaken
        case "passenger_has_active_ride": .errorPassengerActive
        case "driver_has_active_ride": .errorDriverActive
        case "invalid_sign_in_code", "sign_in_code_expired", "sign_in_code_used", "token_already_issued": .errorSignInCode
        case "wrong_ride_word": .errorRideWordWrong
        case "ride_word_locked": .errorRideWordLocked
        case "ride_event_limit", "too_many_streams", "stream_too_slow": .errorLimit
        case "unavailable", "internal": .errorTrouble
        default: .errorRefused
        }
    }

    /// "Your account cannot do that." with the service's reason: "Your account cannot do that: …".
    private static func detailed(_ sentence: String, _ detail: String) -> String {
        guard !detail.isEmpty else { return sentence }
        let bare = sentence.last == "." ? String(sentence.dropLast()) : sentence
        return "\(bare): \(detail)"
    }

    /// A field name as a person says it ("The notes for the driver"; "las notas para el conductor").
    static func fieldWords(_ field: String, in book: Phrasebook = .english) -> String {
        let key: PhraseID? = switch field {
        case "accessibilityNotes": .errorFieldNotes
        case "pickup": .errorFieldPickup
        case "dropoff": .errorFieldDropoff
        case "passengerName", "displayName": .errorFieldName
        case "reason": .errorFieldReason
        case "text": .errorFieldMessage
        case "preset": .errorFieldPreset
        case "vehicle": .errorFieldVehicle
        case "vehicleColour": .errorFieldColour
        case "vehicleMake": .errorFieldMake
        case "vehicleModel": .errorFieldModel
        case "vehiclePlate": .errorFieldPlate
        case "driverId": .errorFieldDriver
        case "minutes": .errorFieldMinutes
        case "name": .errorFieldPlaceName
        case "address": .errorFieldAddress
        case "code": .errorFieldSignInCode
        case "word": .errorFieldRideWord
        case "Idempotency-Key": .errorFieldRetryKey
        default: nil
        }
        return key.map { book($0) } ?? book(.errorFieldOther, ["field": .text(field)])
    }

    // MARK: Everything else

    /// Text as one sentence: a capital first letter and a full stop.
    static func make(_ text: String, in book: Phrasebook = .english) -> String {
        var sentence = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if sentence.hasPrefix("Error: ") { sentence.removeFirst("Error: ".count) }
        guard let first = sentence.first else { return book(.errorSomethingWrong) }
        if first.isLowercase { sentence = first.uppercased() + sentence.dropFirst() }
        if let last = sentence.last, !".!?".contains(last) { sentence += "." }
        return sentence
    }

    /// What a command threw (or ArgumentParser refused), as one sentence. `message` is
    /// ArgumentParser's text for the error; `arguments` what was typed (to name the real problem).
    static func sentence(for error: any Error, message: String, arguments: [String], root: any ParsableCommand.Type,
                         in book: Phrasebook = .english) -> String {
        switch error {
        case let failure as CommandLineFailure: return make(failure.message, in: book)
        case let error as RideClientError: return sentence(error, server: configuredServer(in: book), in: book)
        default: break
        }
        let text = message.isEmpty ? String(describing: error) : message
        return make(usage(text, arguments: arguments, root: root, in: book) ?? text, in: book)
    }

    /// The ride service's address as a command would use it (`RIDEBEACON_SERVER`, else the
    /// settings file); in words of `book`'s language when neither names one.
    static func configuredServer(in book: Phrasebook, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let server = environment["RIDEBEACON_SERVER"], !server.isEmpty { return server }
        return (try? loadSettings(environment: environment))?.server ?? book(.errorConfiguredServer)
    }

    /// ArgumentParser's usage messages, where they hide the real problem: a negative number read
    /// as an option ("Missing expected argument '<MINUTES>'", "Missing value for '--x'"), or an
    /// option name mistyped (reported as some other argument missing).
    static func usage(_ message: String, arguments: [String], root: any ParsableCommand.Type, in book: Phrasebook = .english) -> String? {
        let options = knownOptions(arguments: arguments, root: root)
        // A mistyped option: say so first, with the nearest real one.
        for argument in arguments where argument.hasPrefix("--") && argument.count > 2 {
            let name = String(argument.split(separator: "=", maxSplits: 1)[0])
            guard !options.isEmpty, !options.contains(name), name != "--help", name != "--version" else { continue }
            let nearest = options.min { distance($0, name) < distance($1, name) }
            if let nearest, distance(nearest, name) <= 2 {
                return book(.errorNoOptionNearest, ["option": .text(name), "nearest": .text(nearest)])
            }
            return book(.errorNoOption, ["option": .text(name)])
        }
        // A negative number where a value was due.
        for (index, argument) in arguments.enumerated() where isNegativeNumber(argument) {
            if message.hasPrefix("Missing value for"), index > 0, arguments[index - 1].hasPrefix("-") {
                return book(.errorNegative, ["name": .text(arguments[index - 1]), "value": .text(argument)])
            }
            if message.hasPrefix("Missing expected argument"), let name = quoted(message) {
                return book(.errorNegative, ["name": .text(name.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))), "value": .text(argument)])
            }
        }
        // ArgumentParser's own words, said as what to do.
        let parts = message.split(separator: "'", omittingEmptySubsequences: false).map(String.init)
        if message.hasPrefix("Missing expected argument"), parts.count >= 3 {
            return book(.errorNeedsArgument, ["name": .text(parts[1].replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: ""))])
        }
        if message.hasPrefix("Unexpected argument"), parts.count >= 3 {
            return book(.errorUnexpectedArgument, ["value": .text(parts[1])])
        }
        if message.hasPrefix("The value"), message.contains("is invalid for"), parts.count >= 5 {
            let name = parts[3].replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: "")
            return book(.errorInvalidValue, ["value": .text(parts[1]), "name": .text(name)])
        }
        return nil
    }

    static func isNegativeNumber(_ text: String) -> Bool {
        text.count > 1 && text.hasPrefix("-") && Double(text) != nil
    }

    private static func quoted(_ message: String) -> String? {
        guard let open = message.firstIndex(of: "'"), let close = message[message.index(after: open)...].firstIndex(of: "'") else { return nil }
        return String(message[message.index(after: open)..<close]).split(separator: " ").first.map(String.init)
    }

    /// The long options of the subcommand the arguments name ("--pickup", …), from its help.
    static func knownOptions(arguments: [String], root: any ParsableCommand.Type) -> Set<String> {
        var command: any ParsableCommand.Type = root
        for argument in arguments where !argument.hasPrefix("-") {
            guard let sub = command.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
            command = sub
        }
        let help = root.helpMessage(for: command, columns: 10_000)
        var names = Set<String>()
        let scalars = Array(help)
        var index = 0
        while index < scalars.count - 2 {
            if scalars[index] == "-", scalars[index + 1] == "-", index == 0 || !scalars[index - 1].isLetter {
                var end = index + 2
                while end < scalars.count, scalars[end].isLetter || scalars[end].isNumber || scalars[end] == "-" { end += 1 }
                if end > index + 2 { names.insert(String(scalars[index..<end])) }
                index = end
            } else {
                index += 1
            }
        }
        return names
    }

    /// Edit distance, for "did you mean".
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}
