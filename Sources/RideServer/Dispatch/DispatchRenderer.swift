import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import RideStore

/// What the dispatcher page's templates see. Optional parts are arrays of zero or one item
/// (Mustache sections), so nothing depends on how a renderer treats empty strings.
struct DispatchBoard: Sendable {
    struct RideRow: Sendable {
        var id, requestID, code, state, passenger, driver, vehicle, pickup, dropoff, notes, minutes: String
        var eta: [String]
        /// Why the ride needs a dispatcher's eye (`RideWatch`), when it does.
        var attention: [String]
        /// How a confirmed ride was confirmed, when by the weaker ride word.
        var proof: [String] = []
    }

    struct RequestRow: Sendable {
        var id, code, passenger, pickup, dropoff, notes, minutes: String
    }

    struct Driver: Sendable {
        var id, name: String
    }

    var rides: [RideRow]
    var requests: [RequestRow]
    var freeDrivers: [Driver]
    var hasFreeDrivers: Bool
    var freeDriverCount: Int
    var rideCount: Int
    var requestCount: Int
    var attentionCount: Int
    var hasAttention: Bool
    /// "No ride is stuck." / "1 ride is stuck." / "3 rides are stuck." (STUCK, as the CLI says).
    var attentionSentence: String
    var pageSize: Int
    var nextPath: [String]
    var boardPath: String
    var reloadPath: String
    var csrf: String
    var dispatcherName: String
    var lastEventID: Int64
    var notice: [String]

    init(rides: [RideDetail], hasMore: Bool, requests: [RideRequestRecord], wordConfirmed: Set<String> = [], freeDrivers: [DriverInfo],
         pageSize: Int, after: String?,
         csrf: String, dispatcher: Account, lastEventID: Int64, notice: String?, now: Date = Date()) {
        func minutes(since date: Date) -> String { String(max(0, Int(now.timeIntervalSince(date) / 60))) }
        self.rides = rides.map { detail in
            let ride = detail.ride
            return RideRow(id: ride.id, requestID: ride.requestID, code: ride.shortCode ?? "—", state: ride.state.rawValue,
                           passenger: detail.passenger.name, driver: detail.driver.name, vehicle: detail.driver.writtenVehicle ?? "—",
                           pickup: detail.pickup ?? "—", dropoff: detail.dropoff ?? "—", notes: detail.accessibilityNotes ?? "—",
                           minutes: minutes(since: ride.stateChangedAt),
                           eta: ride.state == .accepted ? ride.etaMinutes.map { ["\($0) min"] } ?? [] : [],
                           attention: RideWatch.isStuck(ride, now: now) ? [Self.attention(ride)] : [],
                           proof: wordConfirmed.contains(ride.id) ? ["by ride word, weaker than touch"] : [])
        }
        self.requests = requests.map { request in
            RequestRow(id: request.id, code: request.shortCode ?? "—", passenger: request.passengerName, pickup: request.pickup,
                       dropoff: request.dropoff, notes: request.accessibilityNotes ?? "—", minutes: minutes(since: request.createdAt))
        }
        self.freeDrivers = freeDrivers.map { driver in
            Driver(id: driver.id, name: driver.vehicle.map { "\(driver.name) (\($0))" } ?? driver.name)
        }
        hasFreeDrivers = !freeDrivers.isEmpty
        freeDriverCount = freeDrivers.count
        rideCount = rides.count
        requestCount = requests.count
        attentionCount = self.rides.filter { !$0.attention.isEmpty }.count
        hasAttention = attentionCount > 0
        attentionSentence = switch attentionCount {
        case 0: "No ride is stuck."
        case 1: "1 ride is stuck."
        default: "\(attentionCount) rides are stuck."
        }
        self.pageSize = pageSize
        let query = after.map { "?after=\(Self.queryEscaped($0))" } ?? ""
        nextPath = hasMore ? rides.last.map { ["/dispatch?after=\(Self.queryEscaped($0.ride.id))"] } ?? [] : []
        boardPath = "/dispatch/board" + query
        reloadPath = "/dispatch" + query
        self.csrf = csrf
        dispatcherName = dispatcher.displayName
        self.lastEventID = lastEventID
        self.notice = notice.map { [$0] } ?? []
    }

    static func attention(_ ride: RideRecord) -> String {
        switch (ride.state, ride.etaMinutes) {
        // One word with the CLI (`dispatcher rides` says STUCK).
        case (.arrived, _): "Stuck: at the pickup for over 5 minutes"
        case (_, nil): "Stuck: accepted over 15 minutes ago, no estimate given"
        default: "Stuck: later than the driver's estimate"
        }
    }

    static func queryEscaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? ""
    }
}

/// Renders the page's templates into responses with the page's security headers.
enum DispatchRenderer {
    /// The templates are constants of this module, so a parse error is a programming error
    /// that the first test of the page catches.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in DispatchTemplates.all {
            do { try library.register(text, named: name) } catch { fatalError("dispatch template \(name): \(error)") }
        }
        return library
    }()

    static func page(_ template: String, _ context: Any, status: HTTPResponse.Status = .ok) -> Response {
        let html = library.render(context, withTemplate: template) ?? ""
        return response(html, contentType: "text/html; charset=utf-8", status: status)
    }

    static func message(_ status: HTTPResponse.Status, heading: String, _ message: String,
                        link: (path: String, text: String) = ("/dispatch", "Back to active rides")) -> Response {
        page("message", ["heading": heading, "message": message, "linkPath": link.path, "linkText": link.text], status: status)
    }

    static func response(_ body: String, contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        // Pages show who is waiting where: never cached, never framed, scripts only from us.
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` with the
        // sign-in form, which the login CSRF check (SameOrigin) must refuse. Nothing leaves the site.
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func redirect(to path: String, cookie: Cookie? = nil) -> Response {
        var response = Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
        if let cookie { response.setCookie(cookie) }
        return response
    }
}
