import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

// Mixed open-loop load on a running `ridebeacon serve` while SSE listeners stay connected,
// sampling the server's RSS (RELIABILITY.md, "Load"; Benchmarks/Load/run.sh seeds and starts).
//
//   ServerLoad --url http://127.0.0.1:8080[,http://127.0.0.1:8081] --rate 1000 --seconds 60
//              --ride-listeners 480 --dispatcher-listeners 20 --server-pid PID[,PID] [--mix lifecycle|read-mostly]
// Tokens come from PASSENGER_TOKEN, DRIVER_TOKEN and DISPATCHER_TOKEN (the seeded accounts).
// Requests are started on a fixed schedule whatever the answers do, and latency counts from the
// scheduled moment (wrk2's rule against coordinated omission), so a slow server cannot hide
// its queueing; requests the schedule offered but the bounded generator could not send are
// counted apart (`not_sent_backlog`), never silently left out. With several URLs requests and
// listeners go round-robin to each server. Prints one JSON object; exits 1 on any error
// (non-2xx, transport error, a listener cut off or never connected).

let usage = """
    ServerLoad --url URL[,URL...] [--rate N] [--seconds N] [--max-in-flight N]
               [--ride-listeners N] [--dispatcher-listeners N] [--server-pid PID[,PID...]] [--label TEXT]
               [--mix lifecycle|read-mostly]
    Tokens: PASSENGER_TOKEN, DRIVER_TOKEN, DISPATCHER_TOKEN (Benchmarks/Load/run.sh seeds them).
    """

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: "--\(name)") else { return nil }
    return index + 1 < arguments.count ? arguments[index + 1] : ""
}

/// A numeric option, or a one-line error naming it.
func number<T: LosslessStringConvertible & Comparable>(_ name: String, _ fallback: T, atLeast minimum: T) throws -> T {
    guard let text = option(name) else { return fallback }
    guard let value = T(text), value >= minimum else { throw LoadError("--\(name): '\(text)' is not a number ≥ \(minimum)") }
    return value
}

struct Settings: Sendable {
    let urls: [String]
    let rate: Double
    let seconds: Double
    let rideListeners: Int
    let dispatcherListeners: Int
    let serverPIDs: [Int32]
    let label: String
    let mix: Mix
    /// Requests in flight at once (and so request connections per server); beyond it a scheduled
    /// request is not sent and is counted. 0: 4 s of the rate, at most 512.
    let maxInFlight: Int
    let environment = ProcessInfo.processInfo.environment
    var passenger: String { environment["PASSENGER_TOKEN"] ?? "" }
    var driver: String { environment["DRIVER_TOKEN"] ?? "" }
    var dispatcher: String { environment["DISPATCHER_TOKEN"] ?? "" }

    init() throws {
        let known: Set = ["--url", "--rate", "--seconds", "--max-in-flight", "--ride-listeners", "--dispatcher-listeners", "--server-pid", "--label", "--mix"]
        for argument in CommandLine.arguments.dropFirst() where argument.hasPrefix("--") && !known.contains(argument) {
            throw LoadError("unknown option \(argument)")
        }
        urls = (option("url") ?? "http://127.0.0.1:8080").split(separator: ",").map(String.init)
        guard !urls.isEmpty, urls.allSatisfy({ $0.hasPrefix("http://") || $0.hasPrefix("https://") }) else {
            throw LoadError("--url: give http(s)://host:port, comma-separated for several servers")
        }
        rate = try number("rate", 1000.0, atLeast: 0.001)
        seconds = try number("seconds", 60.0, atLeast: 0.001)
        rideListeners = try number("ride-listeners", 480, atLeast: 0)
        dispatcherListeners = try number("dispatcher-listeners", 20, atLeast: 0)
        maxInFlight = try number("max-in-flight", 0, atLeast: 0)
        serverPIDs = try (option("server-pid") ?? "").split(separator: ",").map { text in
            guard let pid = Int32(text), pid > 0 else { throw LoadError("--server-pid: '\(text)' is not a process id") }
            return pid
        }
        label = option("label") ?? ""
        let mixName = option("mix") ?? Mix.lifecycle.rawValue
        guard let mix = Mix(rawValue: mixName) else {
            throw LoadError("--mix: '\(mixName)' is not one of \(Mix.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.mix = mix
    }
}

/// What the schedule sends, cycling through the mix's 20 requests.
enum Mix: String, CaseIterable, Sendable {
    /// 8 ride reads, 2 ride listings, 2 request listings, and the write path request -> accept ->
    /// arrive -> touch proofs (driver's, passenger's) twice; each step acts on an earlier step's
    /// result, and falls back to a read or a new request when none is ready yet.
    case lifecycle
    /// Issue 39's simple mix: 16 ride reads, 2 open-request listings (as a driver) and 2
    /// saved-place writes (10 % writes, none of them an event a stream gets).
    case readMostly = "read-mostly"

    var cycle: [Operation] {
        switch self {
        case .lifecycle:
            [.getRide, .create, .listRides, .getRide, .accept, .listRequests, .getRide, .arrive,
             .touch, .getRide, .create, .getRide, .listRequests, .accept, .getRide,
             .arrive, .getRide, .listRides, .touch, .getRide]
        case .readMostly:
            [.getRide, .getRide, .getRide, .getRide, .getRide, .listRequests, .getRide, .getRide, .getRide, .place,
             .getRide, .getRide, .getRide, .getRide, .getRide, .listRequests, .getRide, .getRide, .getRide, .place]
        }
    }
}

enum Operation: String, CaseIterable {
    case getRide = "get", listRides = "list", listRequests = "requests", create, accept, arrive, touch, place
}

struct Load: Sendable {
    let settings: Settings
    let client: HTTPClient
    let recorder: Recorder
    let rideIDs: [String]

    func call(_ method: HTTPMethod, _ path: String, token: String, key: String? = nil, body: String? = nil, server: Int = 0) async throws -> (Int, ByteBuffer) {
        var request = HTTPClientRequest(url: settings.urls[server % settings.urls.count] + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let key { request.headers.add(name: "Idempotency-Key", value: key) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(30))
        return (Int(response.status.code), try await response.body.collect(upTo: 1 << 22))
    }

    static func object(in body: ByteBuffer) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
    }

    static let newRequest = #"{"passengerName":"Ana","pickup":"Main St 1","dropoff":"Central Station"}"#
    static let savedPlace = #"{"name":"home","address":"Main St 1"}"#

    /// Runs the `n`th request of the schedule; `due` is when it should have started.
    func run(_ n: Int, due: ContinuousClock.Instant) async {
        let cycle = settings.mix.cycle
        var operation = cycle[n % cycle.count]
        var pending: String?
        if operation == .accept { pending = recorder.take(\.openRequests); if pending == nil { operation = .create } }
        if operation == .arrive { pending = recorder.take(\.acceptedRides); if pending == nil { operation = .getRide } }
        var touch: PendingTouch?
        if operation == .touch { touch = recorder.take(\.touches); if touch == nil { operation = .getRide } }
        let path: String, method: HTTPMethod, token: String
        var body: String?
        switch operation {
        case .getRide: (method, path, token) = (.GET, "/v1/rides/\(rideIDs[n % rideIDs.count])", settings.dispatcher)
        case .listRides: (method, path, token) = (.GET, "/v1/rides?limit=50", settings.dispatcher)
        case .listRequests: (method, path, token) = (.GET, "/v1/ride-requests?limit=50", settings.driver)
        case .create:
            (method, path, token) = (.POST, "/v1/ride-requests", settings.passenger)
            body = Self.newRequest
        case .place:
            (method, path, token) = (.POST, "/v1/places", settings.passenger)
            body = Self.savedPlace
        case .accept: (method, path, token) = (.POST, "/v1/ride-requests/\(pending ?? "")/accept", settings.driver)
        case .arrive: (method, path, token) = (.POST, "/v1/rides/\(pending ?? "")/arrive", settings.driver)
        case .touch:
            let proof = touch!
            (method, path, token) = (.POST, "/v1/rides/\(proof.rideID)/touch-proofs", proof.side == .driver ? settings.driver : settings.passenger)
            body = proof.body()
        }
        do {
            let (status, answer) = try await call(method, path, token: token, key: method == .POST && operation != .touch ? "load-\(settings.label)-\(n)" : nil,
                                                  body: body, server: n)
            recorder.record(operation.rawValue, latencyMs: Double((ContinuousClock.now - due) / .microseconds(1)) / 1000, status: status,
                            dueSecond: Int(Double(n) / settings.rate))
            guard (200..<300).contains(status), let object = Self.object(in: answer), let id = object["id"] as? String else { return }
            if operation == .create { recorder.put(id, \.openRequests) }
            if operation == .accept { recorder.put(id, \.acceptedRides) }
            if operation == .arrive { for proof in PendingTouch.both(afterArrival: object) { recorder.put(proof, \.touches) } }
        } catch {
            recorder.transportError(operation.rawValue, error)
        }
    }

    /// One SSE listener, held open until cancelled; counts the events it is sent.
    func listen(path: String, token: String, server: Int) async {
        do {
            var request = HTTPClientRequest(url: settings.urls[server % settings.urls.count] + path)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Accept", value: "text/event-stream")
            let response = try await client.execute(request, timeout: .seconds(Int64(settings.seconds) + 300))
            guard response.status == .ok else { throw LoadError("\(path): \(response.status.code)") }
            recorder.state.withLockedValue { $0.listenersOpen += 1 }
            for try await chunk in response.body {
                let events = chunk.readableBytesView.split(separator: UInt8(ascii: "\n")).filter { $0.starts(with: Array("event: ".utf8)) }.count
                if events > 0 { recorder.state.withLockedValue { $0.eventsReceived += events } }
            }
            if !Task.isCancelled { throw LoadError("\(path): the server ended the stream") }
        } catch {
            if !Task.isCancelled {
                recorder.state.withLockedValue { $0.listenerFailures.append(String(describing: error).prefix(120).description) }
            }
        }
    }
}

struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Ride ids to read and follow: walks the dispatcher's listing.
func collectRideIDs(_ load: Load, upTo wanted: Int) async throws -> [String] {
    var ids: [String] = []
    var after: String?
    repeat {
        let (status, body) = try await load.call(.GET, "/v1/rides?limit=200" + (after.map { "&after=\($0)" } ?? ""), token: load.settings.dispatcher)
        guard status == 200, let page = Load.object(in: body),
              let rides = page["rides"] as? [[String: Any]] else { throw LoadError("GET /v1/rides: \(status)") }
        ids += rides.compactMap { $0["id"] as? String }
        after = page["nextAfter"] as? String
    } while after != nil && ids.count < wanted
    return ids
}

func main() async throws {
    if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") { print(usage); exit(0) }
    let settings = try Settings()
    var configuration = HTTPClient.Configuration()
    let listeners = settings.rideListeners + settings.dispatcherListeners
    // Requests in flight never exceed the connections, so a saturated server shows up as
    // latency and a backlog of requests not sent, not as the client pool's own timeouts.
    let maxInFlight = settings.maxInFlight > 0 ? settings.maxInFlight : min(4 * Int(settings.rate), 512)
    configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: listeners + maxInFlight)
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let recorder = Recorder()
    let probe = Load(settings: settings, client: client, recorder: recorder, rideIDs: [])
    let rideIDs = try await collectRideIDs(probe, upTo: 20_000)
    guard !rideIDs.isEmpty else { throw LoadError("the server has no rides to read; seed it first") }
    let load = Load(settings: settings, client: client, recorder: recorder, rideIDs: rideIDs.shuffled())

    let listenerTasks = (0..<listeners).map { n in
        Task {
            if n < settings.dispatcherListeners {
                await load.listen(path: "/v1/events", token: settings.dispatcher, server: n)
            } else {
                await load.listen(path: "/v1/rides/\(load.rideIDs[n % load.rideIDs.count])/events", token: settings.passenger, server: n)
            }
        }
    }
    // Every listener connected before the clock starts.
    let connectDeadline = ContinuousClock.now + .seconds(60)
    while recorder.state.withLockedValue({ $0.listenersOpen + $0.listenerFailures.count }) < listeners, ContinuousClock.now < connectDeadline {
        try await Task.sleep(for: .milliseconds(50))
    }

    let started = ContinuousClock.now
    let sampler = Task {
        while !Task.isCancelled, !settings.serverPIDs.isEmpty {
            if let kib = residentKiB(pids: settings.serverPIDs) {
                let at = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
                recorder.state.withLockedValue { $0.rssKiB.append((at, kib)) }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
    let total = Int(settings.rate * settings.seconds)
    let interval = Duration.seconds(1 / settings.rate)
    await withDiscardingTaskGroup { group in
        for n in 0..<total {
            let due = started + interval * n
            try? await Task.sleep(until: due, clock: .continuous)
            // Bounded: if answers stop coming the generator stops adding work instead of piling it up.
            let admitted = recorder.state.withLockedValue { state -> Bool in
                guard state.inFlight < maxInFlight else { state.late += 1; return false }
                state.inFlight += 1
                return true
            }
            guard admitted else { continue }
            group.addTask {
                let lag = Double((ContinuousClock.now - due) / .microseconds(1)) / 1000
                recorder.state.withLockedValue { $0.sent += 1; $0.sendLagMs.append(lag) }
                await load.run(n, due: due)
                recorder.state.withLockedValue { $0.inFlight -= 1 }
            }
        }
    }
    let elapsed = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
    if let kib = residentKiB(pids: settings.serverPIDs) { recorder.state.withLockedValue { $0.rssKiB.append((elapsed, kib)) } }
    sampler.cancel()
    for task in listenerTasks { task.cancel() }
    try await client.shutdown()

    let state = recorder.state.withLockedValue { $0 }
    let all = state.latenciesMs.values.flatMap { $0 }
    let errors = state.statuses.filter { !$0.key.hasPrefix("2") }.values.reduce(0, +) + state.transportErrors.values.reduce(0, +)
    // Growth over the steady part: the first sample after a tenth of the run to the last.
    let steady = state.rssKiB.first { $0.seconds >= settings.seconds / 10 } ?? state.rssKiB.first
    let seconds = 0..<Int((Double(total) / settings.rate).rounded(.up))
    var report: [String: Any] = [
        "label": settings.label, "mix": settings.mix.rawValue, "target_rate": settings.rate, "seconds": rounded(elapsed), "servers": settings.urls.count,
        "offered": total, "sent": state.sent, "answered": all.count,
        "generator_send_lag_p99_ms": rounded(percentile(state.sendLagMs, 0.99)),
        "requests": all.count, "throughput_per_s": rounded(Double(all.count) / elapsed, 1),
        "p50_ms": rounded(percentile(all, 0.5)), "p99_ms": rounded(percentile(all, 0.99)), "max_ms": rounded(all.max() ?? .nan),
        "errors": errors, "statuses": state.statuses, "transport_errors": state.transportErrors, "not_sent_backlog": state.late,
        "listeners": listeners, "listeners_connected": state.listenersOpen, "listener_failures": state.listenerFailures.count,
        "events_received": state.eventsReceived, "rides_followed": rideIDs.count,
        "per_operation": Dictionary(uniqueKeysWithValues: state.latenciesMs.map { name, values in
            (name, ["n": values.count, "p50_ms": rounded(percentile(values, 0.5)), "p99_ms": rounded(percentile(values, 0.99))] as [String: Any])
        }),
        // Each second's p99 and max, in schedule order: one stall shows as one bad second, and a
        // second with no answer at all (every request in it failed) as null.
        "p99_ms_by_second": seconds.map { second -> Any in state.latenciesMsBySecond[second].map { rounded(percentile($0, 0.99)) as Any } ?? NSNull() },
        "max_ms_by_second": seconds.map { second -> Any in state.latenciesMsBySecond[second].map { rounded($0.max()!) as Any } ?? NSNull() },
    ]
    if let first = steady, let last = state.rssKiB.last {
        report["rss_mib"] = ["start": rounded(Double(state.rssKiB[0].kib) / 1024, 1), "steady_start": rounded(Double(first.kib) / 1024, 1),
                             "end": rounded(Double(last.kib) / 1024, 1),
                             "max": rounded(Double(state.rssKiB.map(\.kib).max() ?? 0) / 1024, 1),
                             "growth_steady_to_end": rounded(Double(last.kib - first.kib) / 1024, 1),
                             // Every 10th sample, to tell a plateau from a leak.
                             "every_10s": stride(from: 0, to: state.rssKiB.count, by: 10).map { rounded(Double(state.rssKiB[$0].kib) / 1024, 1) }]
    }
    let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
    if !state.listenerFailures.isEmpty {
        FileHandle.standardError.write(Data("listener failures: \(state.listenerFailures.prefix(3))\n".utf8))
    }
    // Correctness fails the run; a backlog (the server slower than the schedule) is a figure to report.
    let failed = errors > 0 || !state.listenerFailures.isEmpty || state.listenersOpen < listeners
    exit(failed ? 1 : 0)
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("ServerLoad: \(error)\n".utf8))
    exit(2)
}
