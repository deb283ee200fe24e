import ArgumentParser
import Foundation
import RideClient
import Phrasebook

/// `ridebeacon driver`: find a passenger, take the ride, arrive (advertising the ride's beacon), finish.
struct DriverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "driver",
        abstract: "List open ride requests, accept one, arrive and advertise the ride's beacon, complete the ride.",
        subcommands: [Requests.self, Accept.self, ETA.self, DriverArriveCommand.self, Complete.self]
    )

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List open ride requests, oldest first.",
            discussion: "A plain-text table: one header line, then one line per request, columns separated by two spaces.")

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let requests = try await client.allRideRequests()
                // A passenger is answered her own requests (they carry her id); one with none
                // is known by her saved places, which only passengers have.
                var passenger = requests.contains { $0.passengerID != nil }
                if requests.isEmpty { passenger = (try? await client.places()) != nil }
                let book = await PersonalBook.book(using: client)
                if passenger { throw CommandLineFailure(book(.cliDriverCommandOnly)) }
                Say.line(DispatcherBoard.requests(requests.filter { $0.status == .open }, in: book))
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept an open ride request. Prints the ride's short code.",
            discussion: """
                The ride's short code goes to standard output; a sentence about the ride goes to standard error. \
                Accepting a request you already accepted gives you the same ride again.
                """)

        @Argument(help: ArgumentHelp("The request's short code (or id), from `ridebeacon driver requests`.", valueName: "REQUEST"))
        var request: String
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let ride = try await client.acceptRideRequest(request)
                Say.line(ride.handle)
                let book = await PersonalBook.book(using: client)
                var values: [String: PhraseValue] = ["name": .text(ride.passenger.name), "code": .text(ride.handle)]
                if let pickup = ride.pickup, !pickup.isEmpty { values["pickup"] = .text(pickup) }
                StandardError.writeLine(book(values["pickup"] == nil ? .cliAcceptedNoPickup : .cliAccepted, values))
            }
        }
    }

    struct ETA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eta",
            abstract: "Tell the passenger how many minutes until you reach the pickup.",
            discussion: "Without RIDE, your accepted ride. The passenger hears it at once (`ridebeacon passenger follow`).")

        @Argument(help: ArgumentHelp("Minutes until you reach the pickup, 0 to 240.", valueName: "MINUTES"))
        var minutes: Int
        @Argument(help: ArgumentHelp("The ride's short code (default: your accepted ride).", valueName: "RIDE"))
        var ride: String?
        @OptionGroup var service: ServiceOptions

        func validate() throws {
            guard (0...240).contains(minutes) else { throw ValidationError("MINUTES must be 0 to 240, not \(minutes)") }
        }

        func run() async throws {
            try await withService(service) { client in
                var target = ride
                if target == nil {
                    guard let accepted = try await client.allRides().last(where: { $0.state == .accepted }) else {
                        throw CommandLineFailure(await PersonalBook.book(using: client)(.cliDriverNoAcceptedRide))
                    }
                    target = accepted.id
                }
                let updated = try await client.setETA(target!, minutes: minutes)
                let book = await PersonalBook.book(using: client)
                Say.line(book(.cliToldEta, ["name": .text(updated.passenger.name), "minutes": .count(minutes), "code": .text(updated.handle)]))
            }
        }
    }

    struct Complete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a confirmed ride.")

        @Argument(help: ArgumentHelp("The ride's short code (or id).", valueName: "RIDE"))
        var ride: String
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let completed = try await client.complete(ride)
                Say.line(await PersonalBook.book(using: client)(.cliRideCompleted, ["code": .text(completed.handle)]))
            }
        }
    }
}
