import Foundation
import Phrasebook
import RideClient

/// The ride tables in the device's language (issue 37, point 12): people's names first, then
/// the short code people say and type, never a UUID; the headers, state names and cell words
/// from the phrasebook. Names, places, notes and times are data. The dispatcher's board and
/// `driver requests` both print these.
enum DispatcherBoard {
    /// Waiting requests, then active rides: the dispatcher's whole board.
    static func board(requests: [RideRequest], rides: [Ride], in book: Phrasebook) -> String {
        let waiting = requests.filter { $0.status == .open }
        let top = waiting.isEmpty ? book(.dispatchNoWaitingRequests) : book(.dispatchWaitingRequests) + "\n" + self.requests(waiting, in: book)
        let bottom = rides.isEmpty ? book(.dispatchNoActiveRides) : book(.dispatchActiveRides) + "\n" + self.rides(rides, in: book)
        return top + "\n\n" + bottom
    }

    static func rides(_ rides: [Ride], in book: Phrasebook) -> String {
        guard !rides.isEmpty else { return book(.dispatchNoActiveRides) }
        let header: [PhraseID] = [.tablePassenger, .tableDriver, .tableVehicle, .tableState, .tableRide, .tablePickup, .tableNotes,
                                  .tableSince, .tableEta, .tableFlag]
        return PlainTable.render(
            header: header.map { book($0) },
            rows: rides.map {
                [$0.passenger.name, $0.driver.name, $0.driver.writtenVehicle ?? "-", RideHistory.stateName($0.state, in: book), $0.handle,
                 $0.pickup ?? "-", $0.accessibilityNotes ?? "-", PlainTable.time($0.stateChangedAt), eta($0, in: book),
                 $0.stuck == true ? book(.tableStuck) : "-"]
            })
    }

    static func requests(_ requests: [RideRequest], in book: Phrasebook) -> String {
        guard !requests.isEmpty else { return book(.dispatchNoWaitingRequests) }
        let header: [PhraseID] = [.tablePassenger, .tableRequest, .tablePickup, .tableDropoff, .tableNotes, .tableSince]
        return PlainTable.render(
            header: header.map { book($0) },
            rows: requests.map { [$0.passengerName, $0.handle, $0.pickup, $0.dropoff, $0.accessibilityNotes ?? "-", PlainTable.time($0.createdAt)] })
    }

    /// "by 10:42:00 UTC": when the driver said they would be at the pickup.
    static func eta(_ ride: Ride, in book: Phrasebook) -> String {
        guard ride.state == .accepted, let minutes = ride.etaMinutes, let given = ride.etaGivenAt else { return "-" }
        return book(.tableEtaBy, ["time": .text(PlainTable.time(given.addingTimeInterval(TimeInterval(minutes) * 60)))])
    }

    /// A driver's status cell: "free", or "on ride KX7R".
    static func status(_ driver: DriverInfo, in book: Phrasebook) -> String {
        driver.free ? book(.dispatchDriverFree) : book(.dispatchDriverOnRide, ["code": .text(driver.rideCode ?? "—")])
    }

    /// `dispatcher drivers`: DRIVER, VEHICLE, STATUS, or the sentence for an empty list.
    static func drivers(_ drivers: [DriverInfo], onlyFree: Bool, in book: Phrasebook) -> String {
        guard !drivers.isEmpty else { return book(onlyFree ? .dispatchNoDriverFree : .dispatchNoDrivers) }
        return PlainTable.render(header: [book(.tableDriver), book(.tableVehicle), book(.tableStatus)],
                                 rows: drivers.map { [$0.name, $0.vehicle ?? "—", status($0, in: book)] })
    }
}
