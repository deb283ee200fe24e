import RideClient
import RideSession

/// What the kerb's commands (`passenger follow`, `passenger guide`, `driver arrive`) ask of the
/// ride service beyond RideSession's `RideService`, which their guide and driver session use.
/// RideServiceClient over HTTP is the one real conformer; RideBeaconCLIUnitTests drives the
/// flows through a scripted one, in process. The requirements are the client's own signatures
/// (no defaults in a protocol: callers through it pass the idempotency key and `after`).
protocol RideCommandService: RideService {
    func ride(_ rideID: String) async throws(RideClientError) -> Ride
    func allRides() async throws(RideClientError) -> [Ride]
    func allRideRequests() async throws(RideClientError) -> [RideRequest]
    func createRideRequest(_ request: NewRideRequest, idempotencyKey: IdempotencyKey) async throws(RideClientError) -> RideRequest
    func cancelRide(_ rideID: String, reason: String?, idempotencyKey: IdempotencyKey) async throws(RideClientError) -> Ride
    func arrive(_ rideID: String, idempotencyKey: IdempotencyKey) async throws(RideClientError) -> Ride
    func requestLocator(_ rideID: String) async throws(RideClientError) -> LocatorRequest
    func accountLanguage() async throws(RideClientError) -> String?
    /// The ride's history, then its live changes, with the connection's breaks and returns.
    func rideEvents(_ rideID: String, after: Int64?) -> AsyncThrowingStream<LiveUpdate, any Error>
}

extension RideServiceClient: RideCommandService {}
