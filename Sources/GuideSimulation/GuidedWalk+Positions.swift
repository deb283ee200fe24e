import BeaconCore
import Foundation
import Guide
import Phrasebook
import RideSession

/// The walk's satellite positions (issue 35): both phones' fixes to the guide and the driver's
/// core as their devices would have them, and what the people do with what they are told.
extension GuidedWalk {
    /// Fixes due now: hers and (as her device polls) the driver's to the guide; the driver's
    /// core gets both as his device polls. A helpful driver told where she is comes to her.
    /// `onPositions` sees the fixes the guide is given (hers, the driver's), as they come.
    mutating func positionsStep(at now: Double, unixTime: (Double) -> Double, onDriver: (DriverCore.Action, Double) -> Void,
                                prove: (BeaconSide, TouchObservation) async -> ProofAnswer,
                                onPositions: (Double, GeoFix?, GeoFix?) async -> Void = { _, _, _ in }) async -> [GuideAction] {
        guard var gnss else { return [] }
        let fixes = gnss.fixes(at: now, unixTime: unixTime(now), passenger: world.walker.position, driver: world.device)
        self.gnss = gnss
        guard fixes.own != nil else { return [] }
        await onPositions(now, fixes.own, fixes.driver)
        var out = guide.handle(.positions(time: now, own: fixes.own, driver: fixes.driver))
        if fixes.driver != nil {
            let told = driver.satellite.told
            out += await driverActs(driver.handle(.positions(time: now, own: fixes.driversOwn, passenger: fixes.own)),
                                    at: now, unixTime: unixTime, onDriver: onDriver, prove: prove)
            if driver.satellite.told > told, let scene = world.scene {
                person.toldWhere(at: now, across: scene.street.placement == .acrossStreet)
            }
        }
        // Meeting halfway: she walks on until the driver is beside her, then waits there.
        if guide.farField.halfway, person.position != nil, world.trueDistance <= 1.5, !world.walker.heldForDriver {
            world.hear(.stayPut)
        }
        return out
    }

    /// What she does with a far-field direction: turns and walks along the pavement that way.
    /// Her left and right are the Earth's; on a mirrored (left-hand traffic) street they are
    /// the street frame's other way round.
    mutating func hearFarDirection(_ key: PhraseID) {
        guard world.scene != nil else { return }
        let mirrored = (gnss?.frame.mirror ?? 1) < 0
        let left = Double.pi / 2
        let heading = world.walker.heading
        // Facing the street: from the near pavement towards −y, from the far one towards +y.
        let facingStreet = world.walker.position.y >= 0 ? -Double.pi / 2 : Double.pi / 2
        let turn: Double
        switch key {
        case .guideFarAhead: turn = 0
        case .guideFarBehind: turn = .pi
        case .guideFarLeft: turn = mirrored ? -left : left
        case .guideFarRight: turn = mirrored ? left : -left
        case .guideFarStreetLeft, .guideFarStreetRight:
            let toLeft = (key == .guideFarStreetLeft) != mirrored
            world.hear(.walkAlong(heading: cos(facingStreet + (toLeft ? left : -left)) >= 0 ? 0 : .pi))
            return
        default:
            // Which way is not sure: she stops and listens a while.
            world.hear(.keepStill)
            return
        }
        world.hear(.walkAlong(heading: cos(heading + turn) >= 0 ? 0 : .pi))
    }
}
