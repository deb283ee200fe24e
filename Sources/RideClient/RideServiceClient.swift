import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// The typed client of the ride service's /v1 API (openapi.yaml), for the role CLIs and the
/// guide. One instance owns one HTTP connection pool; call `shutdown()` when done (or use
/// `withRideServiceClient`). Every write carries an Idempotency-Key that its retries reuse.
public final class RideServiceClient: Sendable {
    public struct Configuration: Sendable {
        /// Retries of single calls; streams use `streamRetry`.
        public var retry: RetryPolicy = .standard
        /// Until the response head arrives (connecting included).
        public var requestTimeout: Duration = .seconds(10)
        /// A server that does not take the connection within this is "not answering" (issue 25:
        /// a down server is told within about 2 s, not after 13.6 s of silent retries).
        public var connectTimeout: Duration = .seconds(2)
        /// Longest silence on a connection before it counts as dead. The server sends an event
        /// stream heartbeat every 15 s, so a live stream is never this quiet.
        public var idleTimeout: Duration = .seconds(45)
        /// Reconnecting a live event stream after it broke.
        public var streamRetry: RetryPolicy = .untilCancelled
        /// Told before every retry of a single call, e.g. to say "Cannot reach the ride service, retrying".
        public var onRetry: (@Sendable (RetryNotice) -> Void)?
        /// Allows plain `http://` to a host other than loopback (`--insecure-http`). Off by
        /// default: the bearer token and the ride key would cross the network unencrypted.
        public var allowsInsecureHTTP = false

        public init() {}
    }

    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:8080`.
    public let server: String
    public let configuration: Configuration
    private let token: String
    let http: HTTPClient

    public init(server: String, token: String, configuration: Configuration = Configuration()) throws(RideClientError) {
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              url.host != nil, url.query == nil, url.fragment == nil else {
            throw .invalidConfiguration("server must be an http:// or https:// URL, not \"\(server)\"")
        }
        if scheme == "http", !configuration.allowsInsecureHTTP, !Self.isLoopback(url.host ?? "") {
            throw .invalidConfiguration("refusing plain http:// to \(url.host ?? "") (the token and ride key would travel unencrypted); use https://, or pass --insecure-http on a network you trust")
        }
        guard !token.isEmpty, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .invalidConfiguration("token must be a non-empty API token without spaces")
        }
        self.server = base
        self.token = token
        self.configuration = configuration
        var http = HTTPClient.Configuration(
            timeout: .init(connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.idleTimeout)))
        http.httpVersion = .http1Only
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    }

    /// This machine: `localhost` (and names under it), 127.0.0.0/8, ::1.
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Closes the connection pool. Streams still open end with `.cancelled`.
    public func shutdown() async {
        try? await http.shutdown()
    }

    /// A client dropped without `shutdown()` (its task cancelled or thrown out early) still
    /// closes its pool, in the background; AsyncHTTPClient would otherwise stop the process
    /// in a debug build. The pool keeps itself alive until it has closed.
    deinit {
        http.shutdown(queue: .global()) { _ in }
    }

    // MARK: ride requests

    /// Asks for a ride (passengers).
    public func createRideRequest(_ request: NewRideRequest, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> RideRequest {
        try await send(.POST, "/v1/ride-requests", body: Self.encode(request), idempotencyKey: idempotencyKey)
    }

    /// Passengers: their own requests, any status. Drivers and dispatchers: the open ones.
    public func rideRequests(limit: Int? = nil, after: String? = nil) async throws(RideClientError) -> Page<RideRequest> {
        let list: RideRequestList = try await send(.GET, "/v1/ride-requests" + Self.query(limit: limit, after: after))
        return Page(items: list.rideRequests, nextAfter: list.nextAfter)
    }

    /// Every page of `rideRequests`, oldest first.
    public func allRideRequests() async throws(RideClientError) -> [RideRequest] {
        var all: [RideRequest] = [], after: String? = nil
        repeat {
            let page = try await rideRequests(limit: 200, after: after)
            all += page.items
            after = page.nextAfter
        } while after != nil
        return all
    }

    /// Withdraws the caller's own open request (passengers).
    public func cancelRideRequest(_ requestID: String, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> RideRequest {
        try await send(.POST, "/v1/ride-requests/\(Self.segment(requestID))/cancel", body: Self.emptyObject, idempotencyKey: idempotencyKey)
    }

    /// Takes an open request (drivers); the ride comes back `accepted`, with its key.
    public func acceptRideRequest(_ requestID: String, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> Ride {
        try await send(.POST, "/v1/ride-requests/\(Self.segment(requestID))/accept", body: Self.emptyObject, idempotencyKey: idempotencyKey)
    }

    // MARK: rides

    public func ride(_ rideID: String) async throws(RideClientError) -> Ride {
        try await send(.GET, "/v1/rides/\(Self.segment(rideID))")
    }

    /// Dispatchers: every active ride, without keys. Passengers and drivers: their own, any state.
    public func rides(limit: Int? = nil, after: String? = nil) async throws(RideClientError) -> Page<Ride> {
        let page: RideList = try await send(.GET, "/v1/rides" + Self.query(limit: limit, after: after))
        return Page(items: page.rides, nextAfter: page.nextAfter)
    }

    /// Every page of `rides`, oldest first.
    public func allRides() async throws(RideClientError) -> [Ride] {
        var all: [Ride] = [], after: String? = nil
        repeat {
            let page = try await rides(limit: 200, after: after)
            all += page.items
            after = page.nextAfter
        } while after != nil
        return all
    }

    /// The driver is at the pickup: accepted → arrived.
    public func arrive(_ rideID: String, idempotencyKey: IdempotencyKey = IdempotencyKey()) async throws(RideClientError) -> Ride {
        try await send(.POST, "/v1/rides/\(Self.segment(rideID))/arrive", body: Self.emptyObject, idempotencyKey: idempotencyKey)
    }

    /// The driver ends a confirmed ride: confirmed → completed.
    public func complete(_ rideID: String, idempotencyKey: IdempotencyKey = IdempotencyKey()) async throws(RideClientError) -> Ride {
        try await send(.POST, "/v1/rides/\(Self.segment(rideID))/complete", body: Self.emptyObject, idempotencyKey: idempotencyKey)
    }

    /// Cancels a ride before it completes (its passenger, its driver, dispatchers).
    public func cancelRide(_ rideID: String, reason: String? = nil, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> Ride {
        struct Body: Encodable { var reason: String? }
        return try await send(.POST, "/v1/rides/\(Self.segment(rideID))/cancel", body: Self.encode(Body(reason: reason)),
                              idempotencyKey: idempotencyKey)
    }

    /// The ride key and identity period, as given to the ride's driver and passenger (with the ride).
    public func rideKey(_ rideID: String) async throws(RideClientError) -> RideKey {
        let ride = try await ride(rideID)
        guard let key = ride.rideKey else {
            throw .invalidResponse("no ride key for ride \(rideID): only its driver and passenger get one")
        }
        return key
    }

    /// Posts what this side saw of the counterpart's beacon at touch range.
    public func submitTouchProof(_ proof: TouchProof, rideID: String, idempotencyKey: IdempotencyKey = IdempotencyKey())
        async throws(RideClientError) -> TouchProofOutcome {
        do {
            let result: TouchProofResult = try await send(.POST, "/v1/rides/\(Self.segment(rideID))/touch-proofs",
                                                          body: Self.encode(proof), idempotencyKey: idempotencyKey)
            return .accepted(result)
        } catch .rejected(let problem) where problem.status == 501 {
            return .notVerified(message: problem.message)
        }
    }

    /// The ride's passenger asks the car to sound its locator ticks (while `arrived`; at
    /// most once per `LocatorRule.minimumInterval` per ride, else 429 with `retryAfter`).
    public func requestLocator(_ rideID: String) async throws(RideClientError) -> LocatorRequest {
        try await send(.POST, "/v1/rides/\(Self.segment(rideID))/locator", body: Self.emptyObject)
    }

    // MARK: plumbing

    enum Method: String { case GET, POST, PUT }

    /// One call with retries; decodes a 2xx body as `Response`.
    func send<Response: Decodable>(_ method: Method, _ path: String, body: Data? = nil,
                                   idempotencyKey: IdempotencyKey? = nil) async throws(RideClientError) -> Response {
        // Retried only where a repeat cannot do the work twice: reads, writes with an
        // Idempotency-Key, and any call that never reached the server (`notAnswering`).
        let idempotent = method != .POST || idempotencyKey != nil
        let data = try await withRetries(configuration.retry, idempotent: idempotent) { () async throws(RideClientError) -> Data in
            try await self.once(method, path, body: body, idempotencyKey: idempotencyKey)
        }
        do {
            return try APIDates.decoder.decode(Response.self, from: data)
        } catch {
            throw .invalidResponse("\(method.rawValue) \(path): \(Self.describe(decoding: error))")
        }
    }

    func withRetries<T>(_ policy: RetryPolicy, idempotent: Bool = true, _ body: () async throws(RideClientError) -> T) async throws(RideClientError) -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch {
                guard policy.retries(error, idempotent: idempotent), policy.allowsAttempt(attempt + 1) else { throw error }
                let delay = policy.delay(afterAttempt: attempt, retryAfterSeconds: error.problem?.retryAfter)
                configuration.onRetry?(RetryNotice(error: error, attempt: attempt, delay: delay))
                do { try await Task.sleep(for: delay) } catch { throw .cancelled }
                attempt += 1
            }
        }
    }

    /// One attempt, no retries; the 2xx body as it came (empty for 204).
    func once(_ method: Method, _ path: String, body: Data?, idempotencyKey: IdempotencyKey?) async throws(RideClientError) -> Data {
        var request = makeRequest(path, accept: "application/json")
        request.method = switch method { case .GET: .GET; case .POST: .POST; case .PUT: .PUT }
        if let idempotencyKey { request.headers.add(name: "Idempotency-Key", value: idempotencyKey.rawValue) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let status: Int, bytes: ByteBuffer, retryAfter: String?
        do {
            let response = try await http.execute(request, timeout: TimeAmount(configuration.requestTimeout))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After")
            bytes = try await response.body.collect(upTo: 8 << 20)
        } catch {
            throw Self.classify(error)
        }
        let data = Data(buffer: bytes)
        guard (200..<300).contains(status) else { throw Self.failure(status: status, body: data, retryAfter: retryAfter) }
        return data
    }

    func makeRequest(_ path: String, accept: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: server + path)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: accept)
        request.headers.add(name: "User-Agent", value: "ridebeacon-client/1")
        return request
    }

    /// 5xx is the service failing (retry); 4xx, and 501 (a feature this server lacks), will not
    /// change by retrying.
    static func failure(status: Int, body: Data, retryAfter: String?) -> RideClientError {
        let problem = APIProblem.parse(status: status, body: body, retryAfter: retryAfter)
        return status >= 500 && status != 501 ? .serverFailure(problem) : .rejected(problem)
    }

    static func classify(_ error: any Error) -> RideClientError {
        if let error = error as? RideClientError { return error }
        if error is CancellationError || Task.isCancelled { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            // A client shut down under a running stream is the owner stopping it, not an outage.
            case .cancelled, .alreadyShutdown: return .cancelled
            // No connection was made: nothing was sent.
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return .notAnswering(String(describing: error))
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return .timeout(String(describing: error))
            case .invalidURL, .emptyHost, .emptyScheme:
                return .invalidConfiguration("server URL: \(error)")
            default:
                return .unreachable(String(describing: error))
            }
        }
        let text = String(describing: error)
        // Connection errors (NIO's, the resolver's): the request never left this machine.
        for sign in ["refused", "NIOConnectionError", "connectTimeout", "No route to host", "Network is unreachable",
                     "Name or service not known", "nodename nor servname", "Temporary failure in name resolution"]
        where text.localizedCaseInsensitiveContains(sign) {
            return .notAnswering(sign == "refused" ? "connection refused" : String(text.prefix(200)))
        }
        if text.localizedCaseInsensitiveContains("reset by peer") { return .unreachable("connection reset") }
        return .unreachable(String(text.prefix(200)))
    }

    static func describe(decoding error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default:
            String(describing: error)
        }
    }

    static let emptyObject = Data("{}".utf8)

    static func encode(_ value: some Encodable) -> Data {
        // Cannot fail: bodies are plain strings, numbers and nested objects of them.
        (try? JSONEncoder().encode(value)) ?? emptyObject
    }

    /// A path segment, percent-encoded so an id can never change the route.
    static func segment(_ id: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }

    static func query(limit: Int?, after: String?) -> String {
        var items: [String] = []
        if let limit { items.append("limit=\(limit)") }
        if let after { items.append("after=\(segment(after))") }
        return items.isEmpty ? "" : "?" + items.joined(separator: "&")
    }
}

/// Creates a client, runs `body`, and shuts the client down whatever happens.
public func withRideServiceClient<T>(server: String, token: String,
                                     configuration: RideServiceClient.Configuration = RideServiceClient.Configuration(),
                                     _ body: (RideServiceClient) async throws -> T) async throws -> T {
    let client = try RideServiceClient(server: server, token: token, configuration: configuration)
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}
