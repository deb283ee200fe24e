import ArgumentParser
import Foundation
import Phrasebook
import RideClient

/// `ridebeacon dispatcher`: see every waiting request and active ride, live, and act on them.
struct DispatcherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dispatcher",
        abstract: "See waiting requests and active rides; assign and cancel them.",
        subcommands: [Rides.self, DispatcherDrivers.self, DispatcherAssign.self, DispatcherCancel.self]
    )

    struct Rides: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List waiting requests and active rides as plain-text tables.",
            discussion: """
                Waiting requests (PASSENGER, REQUEST, PICKUP, DROPOFF, NOTES, SINCE), then active \
                rides (PASSENGER, DRIVER, VEHICLE, STATE, RIDE, PICKUP, NOTES, SINCE, ETA, FLAG); each \
                table one header line, then one line per row, columns separated by two spaces. FLAG \
                says STUCK for a ride arrived more than 5 minutes, or accepted 5 minutes past its ETA. With \
                --watch, the tables once, then one line per change saying who and what changed (a \
                bell on STUCK), until Ctrl-C; the tables again only after a lost connection.
                """)

        @Flag(help: "Keep the tables up to date as rides change.")
        var watch = false
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service, waits: watch) { client in
                let book = await PersonalBook.book(using: client)
                guard watch else {
                    Say.line(DispatcherBoard.board(requests: try await client.allRideRequests(), rides: try await client.allRides(), in: book))
                    return
                }
                try await Self.watch(client, in: book)
            }
        }

        /// Prints the board, then one line per change: a screen reader reads what changed, not
        /// two tables again (issue 37). The board is printed again after a lost connection,
        /// when changes may have been missed.
        /// Rides become stuck by time passing, not by events, so the rides are also re-read
        /// every 30 s and a newly stuck one is announced (with the terminal's bell).
        static func watch(_ client: RideServiceClient, in book: Phrasebook) async throws {
            enum Update: Sendable { case live(LiveUpdate), tick }
            let (updates, feed) = AsyncThrowingStream<Update, any Error>.makeStream()
            let stream = client.allEvents()
            let pump = Task {
                do {
                    for try await update in stream { feed.yield(.live(update)) }
                    feed.finish()
                } catch {
                    feed.finish(throwing: error)
                }
            }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(30))
                    feed.yield(.tick)
                }
            }
            defer {
                pump.cancel()
                ticker.cancel()
            }
            var printedOnce = false
            var lostContact = false
            // Requests seen on the board, so a withdrawn one (no longer listed) is still named.
            var seenRequests: [String: RideRequest] = [:]
            var stuckRides: Set<String> = []
            for try await update in updates {
                switch update {
                case .tick:
                    guard printedOnce, !lostContact else { continue }
                    let rides = try await client.allRides()
                    _ = announceNewlyStuck(rides, known: &stuckRides, in: book)
                case .live(.connected):
                    // First connection, or back after a break: show the whole board.
                    if !printedOnce || lostContact {
                        if lostContact { Say.line("") ; Say.line(book(.dispatchReconnected)) }
                        let requests = try await client.allRideRequests()
                        for request in requests { seenRequests[request.id] = request }
                        let rides = try await client.allRides()
                        _ = announceNewlyStuck(rides, known: &stuckRides, in: book)
                        Say.line(DispatcherBoard.board(requests: requests, rides: rides, in: book))
                        printedOnce = true
                        lostContact = false
                    }
                case .live(.interrupted):
                    StandardError.writeLine(book(.guideServiceUnreachable))
                    lostContact = true
                case .live(.event(let event)):
                    let requests = try await client.allRideRequests()
                    for request in requests { seenRequests[request.id] = request }
                    let rides = try await client.allRides()
                    var ride = event.rideID.flatMap { id in rides.first { $0.id == id } }
                    if ride == nil, let id = event.rideID { ride = try? await client.ride(id) }
                    Say.line("")
                    Say.line("\(PlainTable.time(event.at)): \(change(event, ride: ride, request: seenRequests[event.requestID], in: book))")
                    _ = announceNewlyStuck(rides, known: &stuckRides, in: book)
                }
            }
        }

        /// One line per ride that became stuck since the last look, each with the bell (BEL,
        /// the terminal's own sound, so a dispatcher looking away hears it); true if any.
        static func announceNewlyStuck(_ rides: [Ride], known: inout Set<String>, in book: Phrasebook) -> Bool {
            let stuck = rides.filter { $0.stuck == true }
            let fresh = stuck.filter { !known.contains($0.id) }
            known = Set(stuck.map(\.id))
            for ride in fresh {
                Say.line(book(.dispatchLooksStuck, ["passenger": .text(ride.passenger.name), "code": .text(ride.handle),
                                                    "driver": .text(ride.driver.name), "state": .text(RideHistory.stateName(ride.state, in: book)),
                                                    "time": .text(PlainTable.time(ride.stateChangedAt))]), bell: true)
            }
            return !fresh.isEmpty
        }

        /// "Ana's ride KX7R with Ben is now arrived": people first, then the code, never a UUID;
        /// in `book`'s language (the detail, a reason someone typed, stays as written).
        static func change(_ event: RideEvent, ride: Ride?, request: RideRequest?, in book: Phrasebook = .english) -> String {
            let detail = event.detail.map { " (\($0))" } ?? ""
            let subject: PhraseValue = .text(ride.map {
                book(.dispatchSubjectRide, ["passenger": .text($0.passenger.name), "code": .text($0.handle), "driver": .text($0.driver.name)])
            } ?? request.map { book(.dispatchSubjectRequest, ["passenger": .text($0.passengerName), "code": .text($0.handle)]) }
                ?? book(.dispatchSubjectUnknownRequest))
            if let touch = event.touchObserved {
                return book(touch.side == .passenger ? .dispatchChangeTouchPassenger : .dispatchChangeTouchDriver, ["subject": subject])
            }
            if event.kind == .etaGiven {
                guard let minutes = event.detail.flatMap(ETAText.minutes(fromDetail:)) else { return book(.dispatchChangeEta, ["subject": subject]) }
                return book(.dispatchChangeEtaMinutes, ["subject": subject, "minutes": .count(minutes)])
            }
            if event.kind == .locatorRequested { return book(.dispatchChangeLocator, ["subject": subject]) }
            if let message = event.passengerMessage { return book(.dispatchChangeMessage, ["subject": subject, "message": .text(message.text)]) }
            let state: PhraseValue = .text(RideHistory.stateName(event.state, in: book))
            if ride != nil { return book(.dispatchChangeState, ["subject": subject, "state": state]) + detail }
            switch event.state {
            case .requested:
                guard let request else { return book(.dispatchNewRequest) }
                let values: [String: PhraseValue] = ["passenger": .text(request.passengerName), "code": .text(request.handle),
                                                     "pickup": .text(request.pickup), "dropoff": .text(request.dropoff)]
                return book(.dispatchNewRequestPlaces, values)
            case .cancelled: return book(.dispatchChangeWithdrawn, ["subject": subject]) + detail
            default: return book(.dispatchChangeState, ["subject": subject, "state": state]) + detail
            }
        }
    }
}
