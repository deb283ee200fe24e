import BeaconCore
import Foundation
import RideSession
import RideWire

/// The parties' satellite positions during a ride's approach (issue 35, openapi.yaml
/// `/v1/rides/{id}/position`). One attempt each, never retried: a position is worth sending
/// only while it is new, and the device's next fix is the retry.
extension RideServiceClient {
    /// This account's latest fix on its ride (its passenger or driver, while the ride is
    /// accepted or arrived): 204. Throws `.rejected` with 409 once the ride is in another
    /// state, 429 (`retryAfter`) when faster than the service takes positions, 400 for a fix
    /// out of range.
    public func putPosition(_ rideID: String, _ fix: GeoFix) async throws(RideClientError) {
        let body = Self.encode(PositionBody(fix))
        _ = try await once(.PUT, "/v1/rides/\(Self.segment(rideID))/position", body: body, idempotencyKey: nil)
    }

    /// The ride's other party's latest fix, nil when it has reported none (or it was deleted).
    public func otherPartyPosition(_ rideID: String) async throws(RideClientError) -> GeoFix? {
        let path = "/v1/rides/\(Self.segment(rideID))/position/other"
        let data = try await once(.GET, path, body: nil, idempotencyKey: nil)
        let answer: OtherPartyPosition
        do { answer = try APIDates.decoder.decode(OtherPartyPosition.self, from: data) } catch {
            throw .invalidResponse("GET \(path): \(Self.describe(decoding: error))")
        }
        return answer.position.map(GeoFix.init)
    }

    // MARK: RideService

    public func reportPosition(rideID: String, _ fix: GeoFix) async -> PositionRefusal? {
        do { try await putPosition(rideID, fix) } catch { return Self.positionRefusal(error) }
        return nil
    }

    public func otherPartyPosition(rideID: String) async -> Result<GeoFix?, PositionRefusal> {
        do { return .success(try await otherPartyPosition(rideID)) } catch { return .failure(Self.positionRefusal(error)) }
    }

    /// 429 waits, 409 ends the sharing quietly, any other 4xx but 400 ends it with its reason;
    /// the rest (400 for one fix, unreachable, 5xx) is tried again.
    static func positionRefusal(_ error: RideClientError) -> PositionRefusal {
        guard case .rejected(let problem) = error else { return .failed(error.description) }
        switch problem.status {
        case 429: return .tooSoon(retryAfter: Double(problem.retryAfter ?? 1))
        case 409: return .rideOver(problem.message)
        case 400, 422: return .failed(problem.message)
        default: return .refused(problem.description)
        }
    }
}

/// `PUT /v1/rides/{id}/position`'s body.
struct PositionBody: Encodable {
    var latitude: Double
    var longitude: Double
    var accuracyMeters: Double
    var courseDegrees: Double?
    var recordedAt: String

    init(_ fix: GeoFix) {
        latitude = fix.latitude
        longitude = fix.longitude
        accuracyMeters = fix.accuracyMeters
        courseDegrees = fix.courseDegrees
        recordedAt = APIDates.format(Date(timeIntervalSince1970: fix.unixTime))
    }
}

extension GeoFix {
    /// The service's copy of a party's position as a fix.
    public init(_ position: RidePosition) {
        self.init(latitude: position.latitude, longitude: position.longitude, accuracyMeters: position.accuracyMeters,
                  courseDegrees: position.courseDegrees, unixTime: position.recordedAt.timeIntervalSince1970)
    }
}
