import BeaconCore

/// A `Radio` over any HCI byte transport (h4 over TCP/unix/tty, the hci user channel, the
/// simulator): keeps one controller session alive, reconnecting with backoff after a loss and
/// bringing the new controller to the wanted state (advertisement, scanning).
public actor HCIRadio: ReconcilingRadio {
    /// How the radio drives its controller and how it reconnects.
    public struct Options: Sendable {
        /// Extended or legacy advertising/scanning commands (`.automatic` asks the controller).
        public var commandSet: HCICommandSet
        /// The first wait before reconnecting after a loss; doubled after each failed attempt.
        public var initialBackoff: Duration
        /// The longest wait between reconnection attempts.
        public var maximumBackoff: Duration

        /// Defaults: the controller's own command set, reconnecting after 100 ms, then at most every 2 s.
        public init(commandSet: HCICommandSet = .automatic, initialBackoff: Duration = .milliseconds(100),
                    maximumBackoff: Duration = .seconds(2)) {
            self.commandSet = commandSet
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
        }
    }

    /// One connected controller and what has been applied to it. Only read and written on the
    /// radio's actor (the closures that carry it into `serialised` run there).
    final class Session: @unchecked Sendable {
        let host: HCIHost
        let link: HCILink
        let capabilities: ControllerCapabilities
        let reader: Task<any Error, Never>
        var advertising: BeaconAdvertisement?
        /// The random address advertising uses now (nil: the public one).
        var address: BDAddress?
        /// The transmit power the controller reported for advertising.
        var transmitPower: Int8?
        var scanning = false

        init(host: HCIHost, link: HCILink, capabilities: ControllerCapabilities, reader: Task<any Error, Never>) {
            self.host = host
            self.link = link
            self.capabilities = capabilities
            self.reader = reader
        }
    }

    /// Where the controller's bytes come from; each reconnection opens a new link on it.
    public nonisolated let transport: any HCITransport
    let options: Options
    /// What the radio's user wants (advertisement, scanning); each new session is brought to it.
    public nonisolated let demand = RadioDemand()
    private var session: Session?
    private var supervisor: Task<Void, Never>?
    /// The last reconciliation queued. Actor methods interleave at every `await`, so two
    /// reconciliations running at once would each act on a state the other is changing (a scan
    /// stopped for an old stream after a new one found it still on); each waits for this one.
    private var tail: Task<Void, any Error>?
    /// Sessions opened, the first included.
    public private(set) var connectionCount = 0

    /// Connects and initialises the controller; fails when it cannot be reached at all.
    public static func connect(_ transport: any HCITransport, options: Options = Options()) async throws -> HCIRadio {
        let radio = HCIRadio(transport: transport, options: options)
        try await radio.start()
        return radio
    }

    init(transport: any HCITransport, options: Options) {
        self.transport = transport
        self.options = options
    }

    /// Whether the controller uses the extended advertising/scanning commands (nil while disconnected).
    public var usesExtendedCommands: Bool? { session?.capabilities.extended }
    /// The non-resolvable private address advertising uses now (nil: the public one, or not advertising).
    public var advertisingAddress: BDAddress? { session?.advertising == nil ? nil : session?.address }
    /// The transmit power the controller reported for advertising, dBm.
    public var advertisingTransmitPower: Int8? { session?.transmitPower }

    private func start() async throws {
        let first = try await openSession()
        supervisor = Task { await self.supervise(first) }
    }

    private func openSession() async throws -> Session {
        let link = try await transport.open()
        let subscribers = demand.subscribers
        let host = HCIHost(link: link) { subscribers.yield(.sighting($0)) }
        let reader = Task { await host.run() }
        do {
            let capabilities = try await HCIProcedures.initialise(host, commandSet: options.commandSet)
            let session = Session(host: host, link: link, capabilities: capabilities, reader: reader)
            connectionCount += 1
            self.session = session
            try await serialised { try await $0.reconcile(session) }
            return session
        } catch {
            await link.close()
            _ = await reader.value
            throw error
        }
    }

    private func supervise(_ first: Session) async {
        var current = first
        while true {
            let reason = await current.reader.value
            if session === current { session = nil }
            if demand.isShutdown { return }
            demand.broadcast(.lost(RadioLoss(reason: "\(transport): \(reason)")))
            var delay = options.initialBackoff
            while true {
                try? await Task.sleep(for: delay)
                if demand.isShutdown { return }
                do {
                    current = try await openSession()
                    if demand.isShutdown {
                        await current.link.close()
                        return
                    }
                    break
                } catch {
                    delay = min(delay * 2, options.maximumBackoff)
                }
            }
            demand.broadcast(.restored)
        }
    }

    /// Brings the controller to the wanted advertisement and scanning state.
    private func reconcile(_ s: Session) async throws {
        let target = demand.advertisement
        if target != s.advertising {
            if let target {
                // A private advertisement takes a fresh address with every new frame, so no two
                // identities share one; only the interval changing keeps it.
                let newAddress = target.address == .rotatingPrivate
                    && (s.address == nil || s.advertising?.beacon != target.beacon || s.advertising?.address != target.address)
                if let current = s.advertising, !newAddress, current.intervalMilliseconds == target.intervalMilliseconds,
                   current.type == target.type, current.address == target.address, current.transmitPower == target.transmitPower {
                    try await HCIProcedures.replaceData(s.host, target.beacon, s.capabilities)
                } else {
                    let address = newAddress ? BDAddress.nonResolvablePrivate() : nil
                    s.transmitPower = try await HCIProcedures.startAdvertising(s.host, target, s.capabilities,
                                                                               newAddress: address, scanning: s.scanning)
                    if let address { s.address = address }
                    if target.address == .controllerPublic { s.address = nil }
                }
            } else {
                try await HCIProcedures.stopAdvertising(s.host, s.capabilities)
            }
            s.advertising = target
        }
        let wantScanning = demand.wantsScanning
        if wantScanning != s.scanning {
            if wantScanning {
                try await HCIProcedures.startScanning(s.host, s.capabilities)
            } else {
                try await HCIProcedures.stopScanning(s.host, s.capabilities)
            }
            s.scanning = wantScanning
        }
    }

    /// Runs `body` after every reconciliation queued before it has finished.
    private func serialised(_ body: @escaping @Sendable (isolated HCIRadio) async throws -> Void) async throws {
        let previous = tail
        let next = Task {
            _ = await previous?.result
            try await body(self)
        }
        tail = next
        try await next.value
    }

    /// Brings the connected controller to `demand`, after any reconciliation already queued.
    public func apply() async throws {
        try await serialised { try await $0.applyNow() }
    }

    private func applyNow() async throws {
        guard let session else { return }
        do {
            try await reconcile(session)
        } catch let failure as HCIHost.CommandFailed {
            throw RadioError("\(transport): \(failure)")
        } catch {
            // The link is going down; the supervisor reconnects and reconciles.
        }
    }

    /// Stops advertising and scanning on the controller, closes the link and ends every stream.
    public func shutdown() async {
        guard demand.shutDown() else { return }
        if let session {
            try? await serialised { try await $0.reconcile(session) }
            await session.link.close()
        }
        supervisor?.cancel()
        await supervisor?.value
        demand.subscribers.finishAll()
        demand.watchers.finishAll()
    }
}
