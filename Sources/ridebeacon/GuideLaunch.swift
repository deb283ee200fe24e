import BlueZ
import Foundation
import Guide
import RideClient

/// Everything `passenger guide` resolved before guiding: the seam where the Guide state
/// machine (Sources/Guide) takes over. Until it does, this announces the ride and waits for
/// the driver's arrival on the ride's live event stream.
struct GuideLaunch {
    let client: RideServiceClient
    let ride: Ride
    let settings: Settings
    let radio: RadioSelection
    let audioOut: String
    /// For servers that do not send `identityPeriodSeconds` with the ride key.
    let fallbackIdentityPeriod: Int

    func run() async throws {
        Say.line("Ride \(ride.id): your driver is \(RideWords.driver(ride.driver)). \(RideWords.state(ride.state))")
        if ride.state == .arrived || ride.state == .confirmed { return }
        var current = ride.state
        for try await update in client.rideEvents(ride.id) {
            switch update {
            case .connected:
                continue
            case .interrupted:
                StandardError.writeLine(RideServiceMessages.retrying)
            case .event(let event):
                // The stream starts with the ride's history: only what is news is said.
                guard RideWords.progress(event.state) > RideWords.progress(current) else { continue }
                current = event.state
                Say.line(RideWords.state(event.state))
                switch event.state {
                case .arrived, .confirmed, .completed: return
                case .cancelled: throw CommandLineFailure("ride \(ride.id) was cancelled")
                case .requested, .accepted: continue
                }
            }
        }
    }
}

/// Sentences about a ride, for printing (and, in the guide, speaking).
enum RideWords {
    static func driver(_ party: RideParty) -> String {
        party.vehicle.map { "\(party.name), \($0)" } ?? party.name
    }

    /// Position along requested → completed; cancelled ends any of them.
    static func progress(_ state: RideState) -> Int {
        switch state {
        case .requested: 0
        case .accepted: 1
        case .arrived: 2
        case .confirmed: 3
        case .completed, .cancelled: 4
        }
    }

    static func state(_ state: RideState) -> String {
        switch state {
        case .requested: "Waiting for a driver."
        case .accepted: "Your driver is on the way."
        case .arrived: "Your driver has arrived."
        case .confirmed: "Ride confirmed."
        case .completed: "Ride completed."
        case .cancelled: "Ride cancelled."
        }
    }
}
