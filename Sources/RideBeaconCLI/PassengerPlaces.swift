import ArgumentParser
import Foundation
import RideClient
import Phrasebook

/// `ridebeacon passenger places add|list|remove`: named addresses kept with the account.
struct PassengerPlaces: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Your saved places (kept with your account, so a new device has them).",
        discussion: "Use a place's name with `ridebeacon passenger request --from NAME --to NAME`.",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a place; a name you already have is refused unless --replace changes its address.")

        @Argument(help: ArgumentHelp("A short name, for example home.", valueName: "NAME"))
        var name: String
        @Argument(help: ArgumentHelp("Its address.", valueName: "ADDRESS"))
        var address: String
        @Flag(help: "Change the address of a place you already saved under this name.")
        var replace = false
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                // Saving a name again would silently replace its address: refused unless asked.
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                if !replace, let existing = try await client.places().first(where: { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }) {
                    throw CommandLineFailure(PersonalBook.current(.cliPlaceExists, [
                        "place": .text(existing.name), "address": .text(existing.address), "new": .text(address),
                    ]))
                }
                let place = try await client.savePlace(name: name, address: address)
                Say.line(PersonalBook.current(.cliPlaceSaved, ["place": .text(place.name), "address": .text(place.address)]))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your saved places, one per line: NAME: ADDRESS.")

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let places = try await client.places()
                if places.isEmpty { Say.line(PersonalBook.current(.cliNoPlaces)) }
                for place in places { Say.line("\(place.name): \(place.address)") }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a saved place.")

        @Argument(help: ArgumentHelp("The place's name.", valueName: "NAME"))
        var name: String
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let removed = try await client.removePlace(name)
                Say.line(PersonalBook.current(.cliPlaceRemoved, ["place": .text(removed.name)]))
            }
        }
    }
}

/// `ridebeacon passenger rides`: your past rides and requests, newest first, one sentence each.
struct PassengerRideHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rides",
        abstract: "Your rides and requests, newest first, one plain sentence each.")

    @OptionGroup var service: ServiceOptions

    func run() async throws {
        try await withService(service) { client in
            let rides = try await client.allRides()
            let withdrawn = try await client.allRideRequests().filter { $0.status == .cancelled && $0.rideID == nil }
            let lines = rides.map { (at: $0.createdAt, text: RideHistory.sentence($0)) }
                + withdrawn.map { (at: $0.createdAt, text: RideHistory.sentence($0)) }
            if lines.isEmpty { Say.line(PersonalBook.current(.cliNoRides)) }
            for line in lines.sorted(by: { $0.at > $1.at }) { Say.line(line.text) }
        }
    }
}

enum RideHistory {
    /// "2026-11-25 08:40 UTC: from Main St 1 to Station with Ben, blue Prius; completed."
    static func sentence(_ ride: Ride) -> String {
        let route = places(ride.pickup, ride.dropoff)
        let outcome: String = switch ride.state {
        case .completed: "completed"
        case .cancelled: CancellationWords.cancelled(ride.cancellation)
        default: "\(ride.state.rawValue) now (ride \(ride.handle))"
        }
        return "\(PlainTable.date(ride.createdAt)): \(route)with \(RideWords.driver(ride.driver)); \(outcome)."
    }

    static func sentence(_ request: RideRequest) -> String {
        let how = request.cancellation.map { "request \(CancellationWords.cancelled($0)) before a driver took it" }
            ?? "request withdrawn before a driver took it"
        return "\(PlainTable.date(request.createdAt)): \(places(request.pickup, request.dropoff))\(how)."
    }

    /// Blank after retention erased the places: then they are not mentioned.
    private static func places(_ pickup: String?, _ dropoff: String?) -> String {
        guard let pickup, let dropoff, !pickup.isEmpty, !dropoff.isEmpty else { return "" }
        return "from \(pickup) to \(dropoff) "
    }
}
