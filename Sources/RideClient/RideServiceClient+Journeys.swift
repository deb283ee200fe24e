import Foundation

/// Sign-in codes, tokens, dispatcher actions, ETA and saved places.
extension RideServiceClient {
    // MARK: sign-in

    /// Exchanges a one-time sign-in code for a token. `/v1/sign-in` ignores Authorization, so
    /// the client is made with a placeholder token the server never checks.
    /// `deviceName` ("Ana's phone") is listed with the token, so its holder can tell it apart.
    public static func signIn(server: String, code: String, deviceName: String? = nil,
                              configuration: Configuration = Configuration()) async throws(RideClientError) -> SignedIn {
        let client = try RideServiceClient(server: server, token: "sign-in", configuration: configuration)
        struct Body: Encodable { var code: String; var deviceName: String? }
        let result: Result<SignedIn, RideClientError>
        do {
            result = .success(try await client.send(.POST, "/v1/sign-in", body: encode(Body(code: code, deviceName: deviceName))))
        } catch { result = .failure(error) }
        await client.shutdown()
        return try result.get()
    }

    /// A one-time code for an account (admins; dispatchers for passengers and drivers).
    public func issueSignInCode(accountID: String) async throws(RideClientError) -> IssuedSignInCode {
        try await send(.POST, "/v1/accounts/\(Self.segment(accountID))/sign-in-codes", body: Self.emptyObject)
    }

    /// The caller's own tokens, newest first.
    public func tokens() async throws(RideClientError) -> [TokenInfo] {
        let list: TokenList = try await send(.GET, "/v1/tokens")
        return list.tokens
    }

    /// Every driver by name, with their car and whether they are free (dispatchers and admins);
    /// `free` true or false keeps only those.
    public func drivers(free: Bool? = nil) async throws(RideClientError) -> [DriverInfo] {
        let list: DriverList = try await send(.GET, "/v1/drivers" + (free.map { "?free=\($0)" } ?? ""))
        return list.drivers
    }

    /// Revokes one of the caller's own tokens.
    public func revokeToken(_ tokenID: String) async throws(RideClientError) -> TokenInfo {
        try await send(.POST, "/v1/tokens/\(Self.segment(tokenID))/revoke", body: Self.emptyObject)
    }

    /// Asks for a ride; without `passengerName` the server uses the account's name.
    public func requestRide(pickup: String, dropoff: String, accessibilityNotes: String?, passengerName: String?,
                            idempotencyKey: IdempotencyKey = IdempotencyKey()) async throws(RideClientError) -> RideRequest {
        struct Body: Encodable { var passengerName: String?; var pickup: String; var dropoff: String; var accessibilityNotes: String? }
        return try await send(.POST, "/v1/ride-requests",
                              body: Self.encode(Body(passengerName: passengerName, pickup: pickup, dropoff: dropoff, accessibilityNotes: accessibilityNotes)),
                              idempotencyKey: idempotencyKey)
    }

    // MARK: dispatchers

    /// Gives a waiting request to a driver (dispatchers).
    public func assignRideRequest(_ requestID: String, driverID: String, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> Ride {
        struct Body: Encodable { var driverId: String }
        return try await send(.POST, "/v1/ride-requests/\(Self.segment(requestID))/assign", body: Self.encode(Body(driverId: driverID)),
                              idempotencyKey: idempotencyKey)
    }

    /// Withdraws a request: the passenger's own, or any for a dispatcher (with a reason).
    public func cancelRideRequest(_ requestID: String, reason: String?, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> RideRequest {
        struct Body: Encodable { var reason: String? }
        return try await send(.POST, "/v1/ride-requests/\(Self.segment(requestID))/cancel", body: Self.encode(Body(reason: reason)),
                              idempotencyKey: idempotencyKey)
    }

    // MARK: drivers

    /// The driver's minutes to the pickup, on an accepted ride.
    public func setETA(_ rideID: String, minutes: Int, idempotencyKey: IdempotencyKey = IdempotencyKey()) async throws(RideClientError) -> Ride {
        struct Body: Encodable { var minutes: Int }
        return try await send(.POST, "/v1/rides/\(Self.segment(rideID))/eta", body: Self.encode(Body(minutes: minutes)),
                              idempotencyKey: idempotencyKey)
    }

    // MARK: saved places

    public func places() async throws(RideClientError) -> [SavedPlace] {
        let list: SavedPlaceList = try await send(.GET, "/v1/places")
        return list.places
    }

    public func savePlace(name: String, address: String) async throws(RideClientError) -> SavedPlace {
        try await send(.POST, "/v1/places", body: Self.encode(SavedPlace(name: name, address: address)))
    }

    public func removePlace(_ name: String) async throws(RideClientError) -> SavedPlace {
        try await send(.POST, "/v1/places/\(Self.segment(name))/remove", body: Self.emptyObject)
    }
}
