import Foundation
import Hummingbird
import Logging
import NIOCore
import RideStore
import RideWire

/// What the routes read of a request's context: who is asking (set by `AuthMiddleware`) and
/// from where. Route collections are generic over it, Hummingbird 2's controller style, so each
/// states the context it needs and a test can run one with a context of its own.
public protocol RideRequestContext: RequestContext {
    /// Echoed as `X-Request-ID` and attached to every log line of the request.
    var requestID: String { get }
    /// The authenticated account; nil outside `AuthMiddleware` (pages, health, sign-in).
    var account: Account? { get }
    /// A non-reversible key of the token that authenticated the request (rate limits).
    var tokenKey: String? { get }
    /// SHA-256 of the token that authenticated the request, as the store keeps it (streams).
    var tokenHash: Data? { get }
    /// The connection's peer IP address ("unknown" when the channel has none).
    var peerAddress: String { get }
}

/// Per-request state shared by middleware and routes: who is asking and which request this is.
public struct RideContext: RideRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Echoed as `X-Request-ID` and attached to every log line of the request.
    public var requestID: String
    /// Set by `AuthMiddleware`; nil only on the unauthenticated routes (health, metrics).
    public var account: Account?
    /// A non-reversible key of the token that authenticated the request (rate limits).
    public var tokenKey: String?
    /// SHA-256 of the token that authenticated the request, as the store keeps it (streams).
    public var tokenHash: Data?
    /// The connection's peer IP address ("unknown" when the channel has none). Formatted when
    /// asked: most requests (a known token's) never need it (issue 39).
    public var peerAddress: String { peer?.ipAddress ?? "unknown" }
    private let peer: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        requestID = source.logger[metadataKey: "hb.request.id"]?.description ?? UUID().uuidString
        account = nil
        tokenKey = nil
        tokenHash = nil
        peer = source.channel.remoteAddress
    }

    /// Hummingbird enforces this when it collects a body; `BodyLimitMiddleware` answers 413 first.
    public var maxUploadSize: Int { APILimits.maxBodyBytes }

    public var requestDecoder: JSONDecoder { APIJSON.decoder }
    public var responseEncoder: JSONEncoder { APIJSON.encoder }
}

public enum APILimits {
    public static let maxBodyBytes = BodyLimits.maxBodyBytes
    public static let maxNameLength = BodyLimits.maxNameLength
    public static let maxTextLength = BodyLimits.maxTextLength
    public static let defaultPageSize = 50
    public static let maxPageSize = 200
}

/// One JSON dialect for the whole API: ISO 8601 times with milliseconds (the store keeps
/// milliseconds), and sorted keys so a replayed response is byte-for-byte the first one.
enum APIJSON {
    static let encoder = WireDates.makeEncoder()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// The API's timestamp format, the one the client reads (RideWire).
    static func formatTimestamp(_ date: Date) -> String { WireDates.format(date) }

    /// Accepts RFC 3339 times, with or without fractional seconds, lower-case `t`/`z` too.
    static func parseTimestamp(_ text: String) -> Date? { WireDates.parse(text) }
}
