import Foundation
import Logging
import NIOCore
import RideStore
import ServiceLifecycle

/// Fans ride events out to this process's live listeners (SSE streams).
///
/// The store is the only source: on every wake-up the hub reads the history after the last id
/// it delivered and hands each event to the listeners that want it. Wake-ups come from this
/// process's own writes (the store announces each commit: `Store.commits`), from PostgreSQL NOTIFY (writes by other processes) and from a slow
/// poll as a safety net, and they coalesce, so a burst of writes costs one read. Because event
/// ids become visible in id order (see the stores), reading "after the last id" loses nothing
/// and repeats nothing, whichever process wrote.
public actor EventHub: Service {
    public struct Configuration: Sendable {
        /// SSE comment lines keep proxies from closing idle streams.
        public var heartbeatInterval: Duration = .seconds(15)
        /// Re-reads the history even without a wake-up (lost notifications, SQLite written by a CLI).
        public var pollInterval: Duration = .seconds(2)
        /// Messages a listener may have queued; beyond that it is cut off and must resume.
        public var listenerBufferLimit = 256
        /// How long at most an all-rides stream waits after an event for more before writing
        /// (all of them on one shared tick, `LingerTick`), so that
        /// at hundreds of events a second each such stream makes about ten socket writes a
        /// second, not one per event: per-stream writes, not encoding, were what hundreds of
        /// dispatcher streams cost (issue 14). One ride's stream gets few events and writes at once.
        public var allEventsWriteLinger: Duration = .milliseconds(100)
        /// Pause before re-listening after the notification connection dropped.
        public var relistenDelay: Duration = .seconds(1)
        /// Open streams one token may hold at once; the next one is refused 429 `too_many_streams`.
        public var maxStreamsPerToken = 8
        /// How often streams are checked against their token's expiry (in memory, no query).
        public var expiryCheckInterval: Duration = .milliseconds(250)
        /// Re-reads every streamed token from the store even without a revocation signal: a
        /// lost notification, or a SQLite database revoked by another process (the CLI). On
        /// SQLite, which has no notifications, at most 1 s (local reads are cheap), so the CLI's
        /// `admin revoke-tokens` ends streams within a second too.
        public var credentialRecheckInterval: Duration = .seconds(30)

        public init() {}
    }

    public enum Message: Sendable, Equatable {
        /// `frame` is the event's SSE block, encoded once for every listener.
        case event(RideEvent, frame: ByteBuffer)
        case heartbeat
        /// The last message of a stream the server ended (its token stopped working).
        case ended(StreamEnd)
    }

    /// What a stream follows: one ride's events (those whose `rideID` is it), or every event.
    /// `fanOut` finds a ride's streams through `rideListeners`, not by asking each scope.
    public enum Scope: Sendable, Equatable {
        case ride(String)
        case all
    }

    /// A listener's queue. Ending it unregisters the listener.
    public struct Subscription: Sendable {
        let queue: ListenerQueue
        /// All-rides streams wait for this tick before writing (nil: write at once).
        var linger: LingerTick?
        public var messages: Messages { Messages(queue: queue) }

        /// Everything queued since the last call, waiting for at least one (then for the
        /// linger's next tick for more, unless the stream is ending); empty once ended.
        func nextBatch() async -> [Message] {
            var batch = await queue.next()
            guard !batch.isEmpty, let linger, !batch.contains(where: { if case .ended = $0 { true } else { false } }) else { return batch }
            await linger.wait()
            batch += queue.takeQueued()
            return batch
        }

        public func end() { queue.finish() }
    }

    struct Listener {
        var scope: Scope
        var queue: ListenerQueue
        /// The token the stream was opened with; nil for in-process listeners (tests).
        var credential: StreamCredential?
    }

    let store: any Store
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Date
    var listeners: [Int: Listener] = [:]
    /// The ids in `listeners` by what they follow, so an event visits its own ride's streams and
    /// the all-rides ones, not every stream: hundreds of ride streams, each wanting few events.
    private var rideListeners: [String: Set<Int>] = [:]
    private var allRidesListeners: Set<Int> = []
    private var nextListenerID = 0
    /// The last event id handed to listeners; nil while nobody listens.
    private var cursor: Int64?
    private let wakeups: AsyncStream<Void>
    private let wakeupSink: AsyncStream<Void>.Continuation
    let credentialChecks: AsyncStream<Void>
    let credentialCheckSink: AsyncStream<Void>.Continuation
    public private(set) var cutOffListeners = 0
    /// Streams ended because their token was revoked or expired.
    public internal(set) var endedStreams = 0

    /// Called when another server says tokens were revoked (PostgreSQL's notification), and when
    /// the notifications were lost and resumed: whatever was remembered of tokens is stale.
    let onTokensRevoked: @Sendable () -> Void
    /// Called with true once this server listens for other servers' notifications (PostgreSQL)
    /// and with false when that connection is lost: while it is, revocations made elsewhere
    /// cannot reach this server, so nothing remembered of tokens may be trusted.
    let onRevocationSignals: @Sendable (_ heard: Bool) -> Void
    /// The store's announcements of this process's committed writes: an appended event wakes
    /// the hub, a revocation re-checks streamed tokens. No route has to remember either.
    private let commitObservation: CommitObservation
    /// The one clock all-rides streams linger on (nil when the linger is zero).
    let allRidesLinger: LingerTick?

    public init(store: any Store, configuration: Configuration = .init(), logger: Logger, now: @escaping @Sendable () -> Date = { Date() },
                onTokensRevoked: @escaping @Sendable () -> Void = {}, onRevocationSignals: @escaping @Sendable (_ heard: Bool) -> Void = { _ in }) {
        self.store = store
        self.onTokensRevoked = onTokensRevoked
        self.onRevocationSignals = onRevocationSignals
        self.configuration = configuration
        allRidesLinger = configuration.allEventsWriteLinger > .zero ? LingerTick(interval: configuration.allEventsWriteLinger) : nil
        self.logger = logger
        self.now = now
        (wakeups, wakeupSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (credentialChecks, credentialCheckSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let wakeups = wakeupSink, checks = credentialCheckSink
        commitObservation = store.commits.observe { change in
            switch change {
            case .eventsAppended:
                wakeups.yield()
            case .tokensRevoked:
                onTokensRevoked()
                checks.yield()
            }
        }
    }

    deinit { commitObservation.cancel() }

    /// Asks for a re-read of the history soon; cheap, callable from anywhere.
    public nonisolated func wake() {
        wakeupSink.yield()
    }

    public var listenerCount: Int { listeners.count }

    nonisolated var recheckInterval: Duration {
        store.sharesEventsAcrossProcesses ? configuration.credentialRecheckInterval : min(configuration.credentialRecheckInterval, .seconds(1))
    }

    /// Registers a listener. Read the stored history only after this returns: everything
    /// committed later is delivered here, everything before is in the history (overlap is
    /// possible; skip ids already sent).
    /// With a credential, throws `APIError.tooManyStreams` when that token already holds
    /// `maxStreamsPerToken` streams.
    public func subscribe(_ scope: Scope, credential: StreamCredential? = nil) async throws -> Subscription {
        if cursor == nil {
            let last = try await store.lastEventID()
            if cursor == nil { cursor = last }
        }
        // After the last suspension point: counting and registering cannot interleave with
        // another subscribe of the same token, so the cap holds exactly.
        if let credential {
            let open = listeners.values.count(where: { $0.credential?.secretHash == credential.secretHash })
            guard open < configuration.maxStreamsPerToken else { throw APIError.tooManyStreams(configuration.maxStreamsPerToken) }
        }
        let queue = ListenerQueue(limit: configuration.listenerBufferLimit)
        let id = nextListenerID
        nextListenerID += 1
        listeners[id] = Listener(scope: scope, queue: queue, credential: credential)
        switch scope {
        case .all: allRidesListeners.insert(id)
        case .ride(let rideID): rideListeners[rideID, default: []].insert(id)
        }
        queue.setOnTermination { [weak self] in
            Task { await self?.removeListener(id) }
        }
        return Subscription(queue: queue, linger: scope == .all ? allRidesLinger : nil)
    }

    private func removeListener(_ id: Int) {
        unregister(id)
    }

    /// Forgets a listener (its queue is the caller's to finish).
    func unregister(_ id: Int) {
        guard let listener = listeners.removeValue(forKey: id) else { return }
        switch listener.scope {
        case .all:
            allRidesListeners.remove(id)
        case .ride(let rideID):
            rideListeners[rideID]?.remove(id)
            if rideListeners[rideID]?.isEmpty == true { rideListeners[rideID] = nil }
        }
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.deliverOnWakeups() }
            group.addTask { await self.repeatEvery(self.configuration.pollInterval) { await self.sequenceStrandedEvents(); self.wake() } }
            group.addTask { await self.repeatEvery(self.configuration.heartbeatInterval) { await self.fanOut(.heartbeat) } }
            group.addTask { await self.recheckOnSignals() }
            group.addTask { await self.repeatEvery(self.configuration.expiryCheckInterval) { await self.endExpiredStreams() } }
            group.addTask { await self.repeatEvery(self.recheckInterval) { self.credentialsChanged() } }
            if store.sharesEventsAcrossProcesses {
                group.addTask { await self.listenAcrossProcesses() }
            }
            try? await gracefulShutdown()
            // Open streams end here so the HTTP server can finish; clients resume elsewhere.
            finishAll()
            group.cancelAll()
        }
    }

    private func finishAll() {
        for listener in listeners.values { listener.queue.finish() }
        listeners.removeAll()
        rideListeners.removeAll()
        allRidesListeners.removeAll()
    }

    nonisolated func repeatEvery(_ interval: Duration, _ body: @Sendable () async -> Void) async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            await body()
        }
    }

    private func deliverOnWakeups() async {
        for await _ in wakeups {
            await catchUp()
        }
    }

    private func listenAcrossProcesses() async {
        while !Task.isCancelled {
            do {
                // Once listening, re-read: anything appended before LISTEN took effect is caught,
                // after sequencing what a writer stranded while the database was away.
                try await store.listenForAppendedEvents(onListening: {
                    self.onRevocationSignals(true)
                    self.tokensRevoked()
                    Task { await self.sequenceStrandedEvents(); self.wake() }
                }, onAppend: { notice in
                    if notice == .tokensRevoked { self.tokensRevoked() } else { self.wake() }
                })
            } catch {
                logger.warning("event notifications lost; re-listening", metadata: ["error": .string("\(error)")])
            }
            onRevocationSignals(false)
            do { try await Task.sleep(for: configuration.relistenDelay) } catch { return }
        }
    }

    /// Events a writer committed but did not sequence (it crashed, or its connection dropped)
    /// get their ids here, on every server's poll before the poll's read, and whenever the hub
    /// starts listening again (after the database was away). Not on every wake-up:
    /// a wake-up follows a sequencing run (this server's writes sequence before they announce,
    /// other servers' runs NOTIFY), so under load the hub's own run found nothing to move and
    /// was a round trip and a sequencing-lock turn per wake-up, hundreds a second per server
    /// (BENCHMARKS.md, issue 28, "Where the CPU goes"). Any write's run moves stranded events too.
    nonisolated func sequenceStrandedEvents() async {
        guard store.sharesEventsAcrossProcesses else { return }
        do { try await store.sequenceEvents() } catch {
            logger.warning("sequencing staged events failed", metadata: ["error": .string("\(error)")])
        }
    }

    /// Reads everything after the cursor and delivers it; only ever runs from the wake-up
    /// loop, so batches go out in order.
    private func catchUp() async {
        guard !listeners.isEmpty, var after = cursor else {
            // Nobody listens: forget the position, the next subscriber sets a fresh one.
            cursor = nil
            return
        }
        do {
            while true {
                let batch = try await store.events(after: after, limit: 500)
                for event in batch { fanOut(.event(event, frame: EventStream.frame(event))) }
                guard let last = batch.last else { break }
                after = last.id
                cursor = last.id
                if batch.count < 500 { break }
            }
        } catch {
            // The next wake-up or poll retries from the same cursor.
            logger.warning("reading new events failed", metadata: ["error": .string("\(error)")])
        }
    }

    /// Never waits for a listener: each gets the one shared frame or, when its queue is full,
    /// is cut off. An event goes to the all-rides listeners and its own ride's, found by the
    /// index rather than by asking every listener; anything else goes to all.
    private func fanOut(_ message: Message) {
        guard case .event(let event, _) = message else {
            for id in listeners.keys { offer(message, to: id) }
            return
        }
        for id in allRidesListeners { offer(message, to: id) }
        if let rideID = event.rideID, let ids = rideListeners[rideID] {
            for id in ids { offer(message, to: id) }
        }
    }

    private func offer(_ message: Message, to id: Int) {
        guard let listener = listeners[id] else { return }
        switch listener.queue.offer(message) {
        case .enqueued:
            break
        case .overflowed:
            // A slow reader: end its stream rather than silently skip events. It resumes
            // from its Last-Event-ID and gets the rest from the history.
            listener.queue.finish(last: .ended(.tooSlow))
            unregister(id)
            cutOffListeners += 1
            logger.notice("cut off a slow event listener", metadata: ["listener": .stringConvertible(id)])
        case .terminated:
            unregister(id)
        }
    }
}
