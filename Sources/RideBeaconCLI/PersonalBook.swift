import Foundation
import Guide
import Phrasebook
import RideClient

/// This device's language for the lines a command prints, by `DeviceLanguage`'s one rule: the
/// saved setting, else the signed-in account's, else the system's locale, else English (issue
/// 37: error sentences read the saved setting only, so an es account got English errors while
/// its history was Spanish).
enum PersonalBook {
    /// Without asking the ride service (before a command has a client, or after it failed to
    /// reach it): the saved setting, else the system's locale.
    static var current: Phrasebook {
        DeviceLanguage.local(settings: (try? loadSettings()) ?? .standard, environment: ProcessInfo.processInfo.environment)
    }

    /// The whole rule, the account's language included, for a command talking to the service.
    static func book(using client: any RideCommandService) async -> Phrasebook {
        await DeviceLanguage.book(settings: try? loadSettings(), using: client)
    }

    /// The book a failure is told in: the whole rule, except when the service could not be
    /// reached or is failing (asking it for the account's language would only wait again).
    static func forFailure(_ error: any Error, using client: any RideCommandService) async -> Phrasebook {
        if let error = error as? RideClientError {
            switch error {
            case .notAnswering, .unreachable, .timeout, .serverFailure, .cancelled, .invalidResponse: return current
            case .rejected(let problem) where ["unauthenticated", "token_revoked", "token_expired"].contains(problem.code.rawValue):
                return current
            default: break
            }
        }
        if error is CancellationError { return current }
        return await book(using: client)
    }
}
