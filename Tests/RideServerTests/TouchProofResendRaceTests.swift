import Foundation
import HummingbirdTesting
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 36, finding 10: ten copies of one touch proof with their times shifted 0–9 ms, sent at
/// once: 8 of 10 were accepted, because the resend check read the accepted proofs in one
/// transaction and the proof was recorded in another. Now the check and the write are one
/// transaction on both stores: exactly one copy is accepted, whatever the interleaving.
@Suite("Touch proof resends sent at once", .timeLimit(.minutes(2)))
struct TouchProofResendRaceTests {
    @Test(arguments: StoreKind.available)
    func concurrentShiftedCopiesOverHTTPAcceptExactlyOne(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let clock = SteppedClock()
        let ride = try await world.arrivedRide()
        let key = try #require(try await world.store.ride(id: ride.id)?.key)
        try await world.app(configure: { $0.now = clock.reading }).test(.live) { client in
            let proof = try ProofBody(ride: key, by: .driver, at: clock.now).held(for: 2)
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for shift in 0..<10 {
                    var copy = proof
                    let moved = { (date: Date?) in date?.addingTimeInterval(Double(shift) / 1000) }
                    copy.observedAt = proof.observedAt.addingTimeInterval(Double(shift) / 1000)
                    copy.observedFrom = moved(proof.observedFrom)
                    copy.observedUntil = moved(proof.observedUntil)
                    group.addTask {
                        let answer = try await client.call(.post, "/v1/rides/\(ride.id)/touch-proofs", as: world.driver, json: copy.json)
                        return (Int(answer.status.code), answer.errorCode)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0.1 == "replayed_proof" }.count == 9, "\(statuses)")
            #expect(try await world.store.touchProofs(rideID: ride.id).count == 1)
        }
        await world.close()
    }
}
