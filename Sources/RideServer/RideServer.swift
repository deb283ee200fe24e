import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RideStore
import ServiceLifecycle

public struct RideServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var events = EventHub.Configuration()
    /// `serve` hands the store over and wants it closed on shutdown; tests keep theirs.
    public var closesStoreOnShutdown = false
    /// Always mark the dispatcher session cookie Secure (behind a TLS proxy that does not send
    /// `X-Forwarded-Proto: https`).
    public var secureCookies = false
    /// Adds `GET /bench/hello`, Hummingbird's hello world without our middleware: the
    /// benchmark's yardstick (Benchmarks/server).
    public var benchmarkRoutes = false
    /// One open request or active ride per passenger, one accepted, arrived or confirmed ride per driver.
    /// `.unrestricted` only for load tests whose many simulated rides share a few accounts.
    public var bookingRule = BookingRule.oneRideAtATime
    public var touch = TouchProofConfiguration()
    public var locator = LocatorConfiguration()
    public var rateLimits = RateLimitConfiguration()
    /// Header and idle timeouts and connections per address (`ConnectionLimits`).
    public var connections = ConnectionLimits()
    /// Purges finished requests' pickup, drop-off and notes this long after they ended (nil: never).
    public var locationRetention: LocationRetention?
    /// Stored results of keyed writes are deleted this long after the write (checked with the
    /// location purge, hourly), so a retry after that is a new request.
    public var idempotencyRetention = IdempotencyRetention()
    /// The server's clock: proof freshness, slots, proof pairing and rate limits read it.
    /// Tests replace it to step time without waiting.
    public var now: @Sendable () -> Date = { Date() }
    /// Called once the server listens, with the port it bound: with `port` 0 the kernel picks
    /// one, so an in-process caller learns it here instead of reserving a port beforehand.
    public var onListening: @Sendable (_ port: Int) async -> Void = { _ in }

    /// The key sign-in codes are hashed with (`SignInKey`): `serve` passes its key file; the
    /// default lives in memory only.
    public var signInKey = SignInKey.ephemeral()
    /// A page sign-in's token (either page, by code or by pasted token) expires this long after its last use (sliding).
    public var webSessionLifetime: TimeInterval = 12 * 3600
    /// A `/v1/sign-in` token (the CLI's, a device's) expires this long after the sign-in; the
    /// device then signs in with a new code. Every token a code yields expires (issue 36).
    public var signInTokenLifetime: TimeInterval = 90 * 86_400

    /// The bearer token `/metrics` wants (`serve --metrics-token-file`); nil: it answers only
    /// clients on this machine that did not come through the proxy.
    public var metricsToken: String?

    /// Seconds a bearer token's account is reused (`AuthenticationCache`); 0 looks up every request.
    public var tokenCacheLifetime: TimeInterval = 1

    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }
}

public enum RideServer {
    public typealias App = Application<RouterResponder<RideContext>>

    /// The whole server: router, middleware and the services that run beside it (event hub,
    /// store shutdown). Run it with `runService()`; SIGTERM/SIGINT shut it down gracefully:
    /// stop accepting, end event streams, finish in-flight requests, then close the store.
    public static func makeApplication(store: any Store, configuration: RideServerConfiguration = .init(), logger: Logger) -> App {
        let metrics = ServerMetrics()
        let limits = RateLimits(configuration.rateLimits, now: configuration.now, metrics: metrics)
        // On PostgreSQL other servers revoke too: cached answers only while their notifications reach this one.
        let authentications = AuthenticationCache(lifetime: configuration.tokenCacheLifetime, hearsRevocations: !store.sharesEventsAcrossProcesses,
                                                  now: configuration.now)
        let hub = EventHub(store: store, configuration: configuration.events, logger: logger, now: configuration.now,
                           onTokensRevoked: authentications.forgetAll, onRevocationSignals: authentications.revocationSignals(heard:))
        let router = Router(context: RideContext.self)
        if configuration.benchmarkRoutes {
            // Before any middleware, which applies only to routes added after it.
            router.get("/bench/hello") { _, _ in "Hello, world!" }
        }
        // Middleware applies to routes added after it, so it all comes first; outermost first.
        router.add(middleware: RequestLogMiddleware(failures: FailureLogSampler(now: configuration.now)))
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: BodyLimitMiddleware())

        let catalog = RouteCatalog()
        let now = configuration.now
        let rides = RideLookup(store: store, identityPeriod: configuration.touch.identityPeriod, now: now)
        let codes = CodeRedemption(store: store, limits: limits, signInKey: configuration.signInKey, now: now)
        let sessions = WebSessions(store: store)
        let drivers = DriverRoster(store: store)
        let open = RouteRegistrar(group: router.group(), prefix: "", catalog: catalog)
        OperationsRoutes<RideContext>(store: store, metricsToken: configuration.metricsToken,
                                      proxyHeader: configuration.rateLimits.clientAddressHeader.flatMap { HTTPField.Name($0) }, databaseKind: store.sharesEventsAcrossProcesses ? "postgresql" : "sqlite",
                                      exposition: { await metrics.exposition(store: store, hub: hub) }).addRoutes(to: open)

        // The JSON API, by resource; every route but /v1/sign-in behind the token check.
        let v1 = RouteRegistrar(group: router.group("v1").add(middleware: AuthMiddleware(store: store, limits: limits, authentications: authentications, secureCookies: configuration.secureCookies)),
                                prefix: "/v1", catalog: catalog)
        let signIn = SignInRoutes<RideContext>(store: store, limits: limits, codes: codes, tokenLifetime: configuration.signInTokenLifetime, now: now)
        AccountRoutes<RideContext>(store: store).addRoutes(to: v1)
        RideRequestRoutes<RideContext>(store: store, rides: rides, bookingRule: configuration.bookingRule).addRoutes(to: v1)
        RideRoutes<RideContext>(store: store, rides: rides).addRoutes(to: v1)
        TouchProofRoutes<RideContext>(store: store, rides: rides, limits: limits, metrics: metrics, touch: configuration.touch, now: now).addRoutes(to: v1)
        LocatorRoutes<RideContext>(store: store, rides: rides, metrics: metrics, locator: configuration.locator, now: now).addRoutes(to: v1)
        MeetingRoutes<RideContext>(store: store, rides: rides, now: now).addRoutes(to: v1)
        ComeRoutes<RideContext>(store: store, rides: rides, now: now).addRoutes(to: v1)
        MessageRoutes<RideContext>(store: store, rides: rides, limits: limits, now: now).addRoutes(to: v1)
        PositionRoutes<RideContext>(store: store, rides: rides, limits: limits, now: now).addRoutes(to: v1)
        LanguageRoutes<RideContext>(store: store).addRoutes(to: v1)
        EventRoutes<RideContext>(store: store, rides: rides, hub: hub).addRoutes(to: v1)
        signIn.addRoutes(to: v1)
        PlaceRoutes<RideContext>(store: store, now: now).addRoutes(to: v1)
        DriverRoutes<RideContext>(drivers: drivers).addRoutes(to: v1)
        signIn.addOpenRoutes(to: RouteRegistrar(group: router.group("v1"), prefix: "/v1", catalog: catalog))

        // The dispatchers' page and the passengers' page, each with its own error pages.
        let dispatchPages = RouteRegistrar(group: router.group().add(middleware: PageErrorMiddleware()).add(middleware: PageClientMiddleware(limits: limits)), prefix: "", catalog: catalog)
        DispatcherPageRoutes<RideContext>(store: store, rides: rides, limits: limits, codes: codes, sessions: sessions, drivers: drivers, bookingRule: configuration.bookingRule,
                             secureCookies: configuration.secureCookies, webSessionLifetime: configuration.webSessionLifetime, now: now).addRoutes(to: dispatchPages)
        let passengerPageErrors = PageErrorMiddleware(signIn: (path: "/", text: "Sign in"), home: (path: "/", text: "Back to your ride"))
        let passengerPages = RouteRegistrar(group: router.group().add(middleware: passengerPageErrors).add(middleware: PageClientMiddleware(limits: limits)), prefix: "", catalog: catalog)
        PassengerPageRoutes<RideContext>(store: store, limits: limits, codes: codes, sessions: sessions, bookingRule: configuration.bookingRule, secureCookies: configuration.secureCookies,
                            webSessionLifetime: configuration.webSessionLifetime, now: now).addRoutes(to: passengerPages)
        catalog.addMethodNotAllowed(to: router)

        // Services stop in reverse order: the HTTP server (added by Application) first, the
        // hub next, the store last.
        var services: [any Service] = []
        if configuration.closesStoreOnShutdown { services.append(StoreCloser(store: store)) }
        services.append(hub)
        services.append(LocationPurger(store: store, retention: configuration.locationRetention, idempotency: configuration.idempotencyRetention,
                                       checkInterval: configuration.locationRetention?.checkInterval ?? .seconds(3600),
                                       now: configuration.now, logger: logger))
        // Per address only where the peer is the client: behind a proxy every connection is the proxy's.
        let perAddress = configuration.rateLimits.clientAddressHeader == nil ? configuration.connections.maxPerAddress : nil
        return Application(
            router: router,
            server: .guardedHTTP1(configuration.connections, counter: perAddress.map { ConnectionCounter(limit: $0) }),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "ridebeacon"),
            services: services,
            onServerRunning: { channel in
                // The bound port matters with --port 0 (tests, supervisors that pick ports).
                let port = channel.localAddress?.port ?? configuration.port
                logger.info("listening", metadata: ["port": .stringConvertible(port)])
                await configuration.onListening(port)
            },
            logger: logger
        )
    }
}

/// Closes the store once everything that uses it has stopped.
struct StoreCloser: Service {
    let store: any Store

    func run() async throws {
        try? await gracefulShutdown()
        await store.close()
    }
}
