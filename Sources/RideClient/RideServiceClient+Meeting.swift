import Foundation
import RideWire

/// The meeting at the kerb (openapi.yaml, issue 22): the driver's locator answer and moves,
/// the passenger's guide reporting in, the ride word.
extension RideServiceClient {
    /// The ride's driver says which sound they made for the passenger's locator request (or `none`).
    public func answerLocator(_ rideID: String, sound: LocatorSoundName) async throws(RideClientError) -> MeetingEvent {
        struct Body: Encodable { var sound: String }
        return try await send(.POST, "/v1/rides/\(Self.segment(rideID))/locator/answer", body: Self.encode(Body(sound: sound.rawValue)))
    }

    /// The ride's driver walks to the passenger (`coming`), or says the car is across the street (`across`).
    public func meetingMove(_ rideID: String, _ move: MeetingMove) async throws(RideClientError) -> MeetingEvent {
        struct Body: Encodable { var move: String }
        return try await send(.POST, "/v1/rides/\(Self.segment(rideID))/meeting", body: Self.encode(Body(move: move.rawValue)))
    }

    /// The ride's passenger asks the driver to come to her at the pickup (`come_requested`).
    public func askToCome(_ rideID: String) async throws(RideClientError) -> MeetingEvent {
        try await send(.POST, "/v1/rides/\(Self.segment(rideID))/come", body: Self.emptyObject)
    }

    /// The ride's driver's device: it has her come request (`received`), or his answer.
    public func answerCome(_ rideID: String, _ answer: ComeAnswer) async throws(RideClientError) -> MeetingEvent {
        struct Body: Encodable { var answer: String }
        return try await send(.POST, "/v1/rides/\(Self.segment(rideID))/come/answer", body: Self.encode(Body(answer: answer.rawValue)))
    }

    /// The ride's passenger's guide started or stopped.
    public func reportGuide(_ rideID: String, _ report: GuideReport) async throws(RideClientError) -> MeetingEvent {
        struct Body: Encodable { var report: String }
        return try await send(.POST, "/v1/rides/\(Self.segment(rideID))/guide", body: Self.encode(Body(report: report.rawValue)))
    }

    /// The ride's passenger confirms the ride with its ride word (the driver said it, the
    /// passenger heard it match).
    public func confirmByRideWord(_ rideID: String, word: String) async throws(RideClientError) -> Ride {
        struct Body: Encodable { var word: String }
        return try await send(.POST, "/v1/rides/\(Self.segment(rideID))/ride-word", body: Self.encode(Body(word: word)))
    }
}
