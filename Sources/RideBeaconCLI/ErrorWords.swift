import ArgumentParser
import Foundation
import RideClient

/// The one place every failure of a command becomes one sentence a person can act on (issue
/// 25). The ride service's code and field stay available: with `--verbose` they follow the
/// sentence in brackets. Used by `withService` (the ride service's answers) and by
/// `RideBeacon.main` (everything else a command throws, and ArgumentParser's own messages).
enum ErrorWords {
    // MARK: The ride service

    static func sentence(_ error: RideClientError, server: String, verbose: Bool = false) -> String {
        let base: String
        switch error {
        case .notAnswering:
            base = "The ride service at \(server) is not answering. Check your connection; nothing was sent."
        case .unreachable:
            base = "The connection to the ride service at \(server) broke. Check your connection, then try again: "
                + "anything you asked for may or may not have arrived."
        case .timeout:
            base = "The ride service at \(server) took too long to answer. Try again in a minute."
        case .serverFailure(let problem):
            base = problem.retryAfter.map { "The ride service is having trouble right now. Try again in \($0) seconds." }
                ?? "The ride service is having trouble right now. Try again in a minute."
        case .rejected(let problem):
            base = sentence(problem)
        case .invalidResponse:
            base = "The ride service gave an answer this ridebeacon does not understand. Upgrade ridebeacon, or tell the service's operator."
        case .invalidConfiguration(let message):
            base = make(message)
        case .cancelled:
            base = "Stopped."
        }
        guard verbose else { return base }
        switch error {
        case .rejected(let problem), .serverFailure(let problem): return base + " " + code(problem)
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
    static func sentence(_ problem: APIProblem) -> String {
        var message = problem.message
        // The service writes "accessibilityNotes: must not …"; the field is said in words instead.
        var namedField: String?
        if let field = problem.field, message.hasPrefix(field + ": ") {
            message.removeFirst(field.count + 2)
            namedField = field
        }
        switch problem.code.rawValue {
        case "unauthenticated":
            return "The ride service does not know your sign-in (it may have been signed out or mistyped). "
                + "Ask for a new sign-in code and run `ridebeacon sign-in CODE`."
        case "forbidden":
            return make("Your account cannot do that: \(message)")
        case "not_found":
            // "ride 7RWR not found": no such ride or request, or not one of yours.
            return make(message) + " Check the code (`ridebeacon passenger rides` or `driver requests` lists yours) and try again."
        case "rate_limited":
            let wait = problem.retryAfter.map { "Wait \($0) seconds" } ?? "Wait a little"
            return "Too many tries. \(wait), then try again."
        default:
            break
        }
        if let namedField {
            return make("\(fieldWords(namedField)) \(message)")
        }
        return make(message)
    }

    /// A field name as a person says it.
    static func fieldWords(_ field: String) -> String {
        switch field {
        case "accessibilityNotes": "The notes for the driver"
        case "pickup": "The pickup"
        case "dropoff": "The drop-off"
        case "passengerName": "The name"
        case "displayName": "The name"
        case "reason": "The reason"
        case "text": "The message"
        case "preset": "The ready message"
        case "vehicle": "The vehicle"
        case "vehicleColour": "The car's colour"
        case "vehicleMake": "The car's make"
        case "vehicleModel": "The car's model"
        case "vehiclePlate": "The number plate"
        case "driverId": "The driver"
        case "minutes": "The minutes"
        case "name": "The place's name"
        case "address": "The address"
        case "code": "The sign-in code"
        case "word": "The ride word"
        case "Idempotency-Key": "The request's retry key"
        default: "The \(field)"
        }
    }

    // MARK: Everything else

    /// Text as one sentence: a capital first letter and a full stop.
    static func make(_ text: String) -> String {
        var sentence = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if sentence.hasPrefix("Error: ") { sentence.removeFirst("Error: ".count) }
        guard let first = sentence.first else { return "Something went wrong." }
        if first.isLowercase { sentence = first.uppercased() + sentence.dropFirst() }
        if let last = sentence.last, !".!?".contains(last) { sentence += "." }
        return sentence
    }

    /// What a command threw (or ArgumentParser refused), as one sentence. `message` is
    /// ArgumentParser's text for the error; `arguments` what was typed (to name the real problem).
    static func sentence(for error: any Error, message: String, arguments: [String], root: any ParsableCommand.Type) -> String {
        switch error {
        case let failure as CommandLineFailure: return make(failure.message)
        case let error as RideClientError: return sentence(error, server: "the configured address")
        default: break
        }
        let text = message.isEmpty ? String(describing: error) : message
        return make(usage(text, arguments: arguments, root: root) ?? text)
    }

    /// ArgumentParser's usage messages, where they hide the real problem: a negative number read
    /// as an option ("Missing expected argument '<MINUTES>'", "Missing value for '--x'"), or an
    /// option name mistyped (reported as some other argument missing).
    static func usage(_ message: String, arguments: [String], root: any ParsableCommand.Type) -> String? {
        let options = knownOptions(arguments: arguments, root: root)
        // A mistyped option: say so first, with the nearest real one.
        for argument in arguments where argument.hasPrefix("--") && argument.count > 2 {
            let name = String(argument.split(separator: "=", maxSplits: 1)[0])
            guard !options.isEmpty, !options.contains(name), name != "--help", name != "--version" else { continue }
            let nearest = options.min { distance($0, name) < distance($1, name) }
            if let nearest, distance(nearest, name) <= 2 {
                return "There is no option \(name); did you mean \(nearest)?"
            }
            return "There is no option \(name); run the command with --help to see its options."
        }
        // A negative number where a value was due.
        for (index, argument) in arguments.enumerated() where isNegativeNumber(argument) {
            if message.hasPrefix("Missing value for"), index > 0, arguments[index - 1].hasPrefix("-") {
                return "\(arguments[index - 1]) cannot be negative (you gave \(argument))."
            }
            if message.hasPrefix("Missing expected argument"), let name = quoted(message) {
                return "\(name.trimmingCharacters(in: CharacterSet(charactersIn: "<>"))) cannot be negative (you gave \(argument))."
            }
        }
        // ArgumentParser's own words, said as what to do.
        let parts = message.split(separator: "'", omittingEmptySubsequences: false).map(String.init)
        if message.hasPrefix("Missing expected argument"), parts.count >= 3 {
            return "This command needs \(parts[1].replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: "")); "
                + "run it with --help to see what it takes."
        }
        if message.hasPrefix("Unexpected argument"), parts.count >= 3 {
            return "'\(parts[1])' is not something this command takes; run it with --help to see what it takes."
        }
        if message.hasPrefix("The value"), message.contains("is invalid for"), parts.count >= 5 {
            let name = parts[3].replacingOccurrences(of: "<", with: "").replacingOccurrences(of: ">", with: "")
            return "'\(parts[1])' is not a valid \(name); run the command with --help to see what it takes."
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
