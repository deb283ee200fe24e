import ArgumentParser
import Foundation
import RideClient
import Phrasebook

/// `ridebeacon passenger`: ask for a ride, withdraw it, and be guided to the car.
struct PassengerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passenger",
        abstract: "Request a ride, cancel it, or be guided to your driver's car.",
        subcommands: [Request.self, Cancel.self, PassengerGuideCommand.self, PassengerFollowCommand.self, PassengerPlaces.self, PassengerRideHistory.self,
                      PassengerMessageCommand.self]
    )

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask for a ride. Prints the request's short code.",
            discussion: """
                The short code goes to standard output (tell it to your driver or dispatcher); a sentence \
                about the request goes to standard error. One ride at a time: while you have an open \
                request or an active ride, asking again is refused and names it.
                """)

        @Option(help: ArgumentHelp("The name your driver calls out (default: your account's name).", valueName: "NAME"))
        var name: String?
        @Option(name: [.customLong("pickup"), .customLong("from")],
                help: ArgumentHelp("Where to be picked up: an address, or a saved place's name (`passenger places`).", valueName: "PLACE"))
        var pickup: String
        @Option(name: [.customLong("dropoff"), .customLong("to")],
                help: ArgumentHelp("Where to go: an address, or a saved place's name.", valueName: "PLACE"))
        var dropoff: String
        @Option(help: ArgumentHelp("For the driver, for example \"guide dog\".", valueName: "TEXT"))
        var notes: String?
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                // A saved place's name stands for its address; anything else is the address itself.
                let places = try await client.places()
                func address(_ text: String) -> String {
                    places.first { $0.name.caseInsensitiveCompare(text) == .orderedSame }?.address ?? text
                }
                let request = try await client.requestRide(pickup: address(pickup), dropoff: address(dropoff), accessibilityNotes: notes,
                                                           passengerName: name)
                Say.line(request.handle)
                let book = await PersonalBook.book(using: client)
                StandardError.writeLine(book(.cliRideRequested, ["pickup": .text(request.pickup), "dropoff": .text(request.dropoff),
                                                                 "code": .text(request.handle)]))
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel your open request or your ride.",
            discussion: "Without an id, cancels your newest open request, else your newest ride that has not ended.")

        @Argument(help: ArgumentHelp("A short code, request id or ride id.", valueName: "ID"))
        var id: String?
        @Option(help: ArgumentHelp("Why, kept in the ride's history.", valueName: "TEXT"))
        var reason: String?
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let requests = try await client.allRideRequests()
                let target: RideRequest?
                if let id {
                    let code = ShortCode.normalized(id)
                    target = requests.last { $0.id == id || $0.rideID == id || (code != nil && $0.code == code) }
                } else {
                    let active = try await client.allRides().filter { !$0.state.isFinal }.map(\.requestID)
                    target = requests.last { $0.status == .open } ?? requests.last { $0.rideID != nil && active.contains($0.id) }
                }
                let book = await PersonalBook.book(using: client)
                if let request = target, request.status == .open {
                    _ = try await client.cancelRideRequest(request.id, reason: reason)
                    Say.line(book(.cliRequestCancelled, ["code": .text(request.handle)]))
                } else if let rideID = target?.rideID ?? id {
                    let ride = try await client.cancelRide(rideID, reason: reason)
                    Say.line(book(.cliRideCancelled, ["code": .text(ride.handle)]))
                } else {
                    throw CommandLineFailure(book(.cliNothingToCancel))
                }
            }
        }
    }
}
