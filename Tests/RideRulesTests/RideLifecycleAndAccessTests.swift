import RideRules
import RideWire
import Testing

/// The state machine and who may do what: each rule as a table, so changing one of them fails here.
@Suite struct RideLifecycleAndAccessTests {
    @Test func theLifecycleAllowsExactlyItsMoves() {
        var allowed: Set<String> = []
        for from in RideState.allCases {
            for to in RideState.allCases where RideLifecycle.canMove(from: from, to: to) { allowed.insert("\(from.rawValue)>\(to.rawValue)") }
        }
        #expect(allowed == ["requested>accepted", "accepted>arrived", "arrived>confirmed", "confirmed>completed",
                            "requested>cancelled", "accepted>cancelled", "arrived>cancelled", "confirmed>cancelled"])
        #expect(RideState.arrived.canMove(to: .confirmed) && !RideState.completed.canMove(to: .cancelled))
        #expect(RideLifecycle.states(movingTo: .cancelled) == [.requested, .accepted, .arrived, .confirmed])
        #expect(RideLifecycle.states(from: .arrived) == [.confirmed, .cancelled])
    }

    @Test func aPartyIsItsRelationToTheRide() {
        #expect(RideRelation(role: .passenger, accountID: "p", passengerID: "p", driverID: "d") == .itsPassenger)
        #expect(RideRelation(role: .passenger, accountID: "q", passengerID: "p", driverID: "d") == .otherPassenger)
        #expect(RideRelation(role: .driver, accountID: "d", passengerID: "p", driverID: "d") == .itsDriver)
        #expect(RideRelation(role: .driver, accountID: "e", passengerID: "p", driverID: "d") == .otherDriver)
        #expect(RideRelation(role: .driver, accountID: "d", passengerID: "p", driverID: nil) == .otherDriver, "a request has no driver")
        #expect(RideRelation(role: .dispatcher, accountID: "x", passengerID: "p", driverID: "d") == .dispatcher)
        #expect(RideRelation(role: .admin, accountID: "x", passengerID: "p", driverID: "d") == .admin)
        #expect(RideRelation.allCases.allSatisfy { ($0.side != nil) == ($0 == .itsPassenger || $0 == .itsDriver) })
    }

    /// Who may cancel, once for the API, both pages and the CLI.
    @Test func whoMayCancel() {
        #expect(RideAccess.parties(for: .cancelRide) == [.itsPassenger, .itsDriver, .dispatcher])
        #expect(RideAccess.parties(for: .cancelRequest) == [.itsPassenger, .dispatcher])
        #expect(RideAccess.check(.cancelRide, by: .otherDriver) == .notThisRide)
        #expect(RideAccess.check(.cancelRide, by: .otherPassenger) == .notThisRide)
        #expect(RideAccess.check(.cancelRide, by: .admin) == .roleMayNot)
        #expect(RideAccess.check(.cancelRequest, by: .otherDriver) == .roleMayNot, "a driver cancels the ride, not the request")
        #expect(RideAccess.check(.cancelRequest, by: .otherPassenger) == .notThisRide)
        #expect(RideAccess.cancellationNeedsReason(by: .dispatcher))
        #expect(!RideAccess.cancellationNeedsReason(by: .passenger) && !RideAccess.cancellationNeedsReason(by: .driver))
    }

    @Test func whoMayDoEachOtherAct() {
        let table: [RideAct: Set<RideRelation>] = [
            .viewRide: [.itsPassenger, .itsDriver, .dispatcher],
            .acceptRequest: [.itsDriver, .otherDriver],
            .assignRequest: [.dispatcher],
            .arrive: [.itsDriver], .complete: [.itsDriver], .giveETA: [.itsDriver], .answerLocator: [.itsDriver], .sayComing: [.itsDriver],
            .sayAcross: [.itsDriver, .itsPassenger],
            .proveTouch: [.itsPassenger, .itsDriver], .sharePosition: [.itsPassenger, .itsDriver], .seeOtherPosition: [.itsPassenger, .itsDriver],
            .confirmByRideWord: [.itsPassenger], .requestLocator: [.itsPassenger], .reportGuide: [.itsPassenger], .sendMessage: [.itsPassenger],
            .seeCoarsePositions: [.dispatcher],
            // Issue 37, point 2: she asks him to come; only his device answers.
            .askToCome: [.itsPassenger], .answerCome: [.itsDriver],
        ]
        for (act, parties) in table { #expect(RideAccess.parties(for: act) == parties, "\(act)") }
        #expect(Set(table.keys).union([.cancelRide, .cancelRequest]) == Set(RideAct.allCases), "every act is in a table")
        #expect(RideAccess.roles(for: .proveTouch) == [.passenger, .driver])
        #expect(RideAccess.check(.proveTouch, by: .dispatcher) == .roleMayNot)
        #expect(!RideAccess.may(.admin, .viewRide))
    }

    @Test func onlyTheRidesTwoPeopleSeeItsKey() {
        #expect(RideRelation.allCases.filter(RideAccess.seesKey) == [.itsPassenger, .itsDriver])
    }
}
