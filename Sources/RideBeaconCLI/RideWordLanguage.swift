import BeaconCore
import Phrasebook
import RideClient

/// The ride word as both devices show and say it (issue 37, point 12): in the passenger's
/// language as the ride carries it (`RideParty.language`, her account's, sent only to the ride's
/// own people), English when her account chose none or the service is older. Her device
/// (`GuideLaunch`, the demo) and the driver's (`driver arrive`) call this one function, so the
/// two words are the same on both, whatever language each device itself speaks.
enum SharedRideWord {
    /// The language the ride word is said in.
    static func language(of ride: Ride) -> Language {
        ride.passenger.language.flatMap(Language.init(code:)) ?? .en
    }

    /// "río vela" for a Spanish passenger's ride.
    static func phrase(_ ride: Ride, key: some Collection<UInt8>) -> String {
        RideWord.phrase(rideKey: key, language: language(of: ride).rawValue)
    }
}
