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
                    throw CommandLineFailure(await PersonalBook.book(using: client)(.cliPlaceExists, [
                        "place": .text(existing.name), "address": .text(existing.address), "new": .text(address),
                    ]))
                }
                let place = try await client.savePlace(name: name, address: address)
                Say.line(await PersonalBook.book(using: client)(.cliPlaceSaved, ["place": .text(place.name), "address": .text(place.address)]))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your saved places, one per line: NAME: ADDRESS.")

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let places = try await client.places()
                if places.isEmpty { Say.line(await PersonalBook.book(using: client)(.cliNoPlaces)) }
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
                Say.line(await PersonalBook.book(using: client)(.cliPlaceRemoved, ["place": .text(removed.name)]))
            }
        }
    }
}

/// `ridebeacon passenger rides`: your past rides and requests, newest first, one sentence each,
/// in this device's language, at this device's time.
struct PassengerRideHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rides",
        abstract: "Your rides and requests, newest first, one plain sentence each, in your time zone.")

    @OptionGroup var service: ServiceOptions

    func run() async throws {
        try await withService(service) { client in
            let book = await DeviceLanguage.book(settings: try? loadSettings(), using: client)
            let rides = try await client.allRides()
            let withdrawn = try await client.allRideRequests().filter { $0.status == .cancelled && $0.rideID == nil }
            var ways: [String: RideConfirmationWay] = [:]
            for ride in rides where RideHistory.saysHowConfirmed(ride) {
                ways[ride.id] = await RideHistory.confirmationWay(of: ride, using: client)
            }
            for line in RideHistory.lines(rides: rides, withdrawn: withdrawn, ways: ways, in: book) { Say.line(line) }
        }
    }
}

enum RideHistory {
    /// Every line, newest first; one saying there is none when there is none.
    static func lines(rides: [Ride], withdrawn: [RideRequest], ways: [String: RideConfirmationWay] = [:], in book: Phrasebook = .english,
                      zone: TimeZone = .current) -> [String] {
        let lines = rides.map { (at: $0.createdAt, text: sentence($0, confirmed: ways[$0.id], in: book, zone: zone)) }
            + withdrawn.map { (at: $0.createdAt, text: sentence($0, in: book, zone: zone)) }
        if lines.isEmpty { return [book(.cliNoRides)] }
        return lines.sorted { $0.at > $1.at }.map(\.text)
    }

    /// "2026-11-25 09:40 CET: from Main St 1 to Station with Ben, blue Toyota Prius, plate AB12 CDE; completed."
    /// The plate as written: this is read on a screen, not spoken.
    /// `confirmed`: how the ride was confirmed (touch, ride word, operator), said when known.
    static func sentence(_ ride: Ride, confirmed: RideConfirmationWay? = nil, in book: Phrasebook = .english,
                         zone: TimeZone = .current) -> String {
        let how = confirmed.map { confirmedHow($0, in: book) }
        let outcome: String = switch ride.state {
        case .completed: how.map { book(.historyOutcomeCompletedHow, ["how": .text($0)]) } ?? book(.historyOutcomeCompleted)
        case .confirmed where how != nil: book(.historyOutcomeConfirmedNow, ["how": .text(how!), "code": .text(ride.handle)])
        case .cancelled: CancellationWords.cancelled(ride.cancellation, in: book)
        default: book(.historyOutcomeOngoing, ["state": .text(stateName(ride.state, in: book)), "code": .text(ride.handle)])
        }
        var values: [String: PhraseValue] = [
            "when": .text(PlainTable.localDate(ride.createdAt, zone: zone)),
            "driver": .text(RideWords.driver(ride.driver, in: book, spoken: false)), "outcome": .text(outcome),
        ]
        guard let (pickup, dropoff) = places(ride.pickup, ride.dropoff) else { return book(.historyRideLineNoPlaces, values) }
        values["pickup"] = .text(pickup)
        values["dropoff"] = .text(dropoff)
        return book(.historyRideLine, values)
    }

    static func sentence(_ request: RideRequest, in book: Phrasebook = .english, zone: TimeZone = .current) -> String {
        var values: [String: PhraseValue] = [
            "when": .text(PlainTable.localDate(request.createdAt, zone: zone)),
            "outcome": .text(CancellationWords.requestGone(request.cancellation, in: book)),
        ]
        guard let (pickup, dropoff) = places(request.pickup, request.dropoff) else { return book(.historyRequestLineNoPlaces, values) }
        values["pickup"] = .text(pickup)
        values["dropoff"] = .text(dropoff)
        return book(.historyRequestLine, values)
    }

    /// "confirmed with the ride word"
    static func confirmedHow(_ way: RideConfirmationWay, in book: Phrasebook) -> String {
        switch way {
        case .touch: book(.historyConfirmedByTouch)
        case .rideWord: book(.historyConfirmedByWord)
        case .operator: book(.historyConfirmedByOperator)
        }
    }

    /// Whether the line says how the ride was confirmed: it was, and retention has not erased
    /// its details yet (the places go with the events' details, which tell a ride word from a touch).
    static func saysHowConfirmed(_ ride: Ride) -> Bool {
        (ride.state == .confirmed || ride.state == .completed) && places(ride.pickup, ride.dropoff) != nil
    }

    /// How `ride` was confirmed, read from its history (its `confirmed` state change); nil when
    /// the history cannot be read or has none. Stops at that event, or at the ride's end.
    static func confirmationWay(of ride: Ride, using client: any RideCommandService) async -> RideConfirmationWay? {
        do {
            for try await update in client.rideEvents(ride.id, after: nil) {
                switch update {
                case .connected: continue
                case .interrupted: return nil
                case .event(let event):
                    guard event.kind.isStateChange else { continue }
                    if event.state == .confirmed { return RideConfirmationWay(event: event) }
                    if event.state.isFinal { return nil }
                }
            }
        } catch {}
        return nil
    }

    /// A state's name alone ("accepted").
    static func stateName(_ state: RideState, in book: Phrasebook) -> String {
        switch state {
        case .requested: book(.rideStateNameRequested)
        case .accepted: book(.rideStateNameAccepted)
        case .arrived: book(.rideStateNameArrived)
        case .confirmed: book(.rideStateNameConfirmed)
        case .completed: book(.rideStateNameCompleted)
        case .cancelled: book(.rideStateNameCancelled)
        }
    }

    /// Nil after retention erased the places: then they are not mentioned.
    private static func places(_ pickup: String?, _ dropoff: String?) -> (String, String)? {
        guard let pickup, let dropoff, !pickup.isEmpty, !dropoff.isEmpty else { return nil }
        return (pickup, dropoff)
    }
}
