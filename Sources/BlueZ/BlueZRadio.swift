import BeaconCore
import RadioCore
import Synchronization

/// A `Radio` through bluetoothd's D-Bus API: advertising with LEAdvertisingManager1, scanning with
/// Adapter1 discovery and Device1 property signals.
///
/// bluetoothd restarting (org.bluez changing owner), the adapter disappearing (InterfacesRemoved)
/// or the bus connection dropping reports `.lost`; the radio then retries with backoff — and at
/// once when org.bluez or the adapter reappears — re-registering the advertisement and restarting
/// discovery, and reports `.restored`.
public actor BlueZRadio: ReconcilingRadio {
    public struct Options: Sendable {
        /// Discovery filter RSSI floor (dBm). Its presence is what turns off bluetoothd's 8 dB rule.
        public var rssiFloor: Int16
        public var initialBackoff: Duration
        public var maximumBackoff: Duration
        public var callTimeout: Duration
        /// The bus to use; nil reads `DBUS_SYSTEM_BUS_ADDRESS` (else the system socket) at each connect.
        public var busAddress: String?

        public init(rssiFloor: Int16 = -120, initialBackoff: Duration = .milliseconds(100),
                    maximumBackoff: Duration = .seconds(5), callTimeout: Duration = .seconds(10),
                    busAddress: String? = nil) {
            self.busAddress = busAddress
            self.rssiFloor = rssiFloor
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.callTimeout = callTimeout
        }
    }

    /// Where our LEAdvertisement1 object lives on our connection.
    public static let advertisementPath = "/org/ridebeacon/advertisement0"

    public nonisolated let adapter: String
    nonisolated let adapterPath: String
    let options: Options
    public nonisolated let demand = RadioDemand()
    /// What our exported object answers; read on the bus thread.
    private let published = Mutex<BeaconAdvertisement?>(nil)
    /// What the bus thread answers bluetoothd's property reads with.
    private nonisolated var publishedAdvertisement: BeaconAdvertisement? { published.withLock { $0 } }
    private let devices: BlueZDevices
    private var bus: DBusConnection?
    /// The advertisement bluetoothd holds for us (nil after a loss or a Release).
    private var registered: BeaconAdvertisement?
    private var discovering = false
    /// The power bluetoothd says the controller advertises at, for an advertisement that asked for the highest.
    private var transmitPower: Int8?
    private var healthy = false
    private var recovery: Task<Void, Never>?
    private var wakeUp: CheckedContinuation<Void, Never>?
    /// Serialises reconciliations: each waits for the previous one (actor methods interleave at awaits).
    private var tail: Task<Void, any Error>?
    /// RegisterAdvertisement calls that succeeded, and losses recovered from.
    public private(set) var registrations = 0
    public private(set) var restorations = 0

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set) and checks the adapter.
    public static func connect(adapter: String = "hci0", options: Options = Options()) async throws -> BlueZRadio {
        let radio = BlueZRadio(adapter: adapter, options: options)
        // Callers name the radio; these messages say what is wrong with it.
        do {
            try await radio.openBus()
        } catch let error as DBusError {
            await radio.shutdown()
            throw RadioError("cannot reach the system bus (is dbus running? DBUS_SYSTEM_BUS_ADDRESS overrides it): \(error.message)")
        }
        do {
            try await radio.checkAdapter()
        } catch let error as DBusError {
            await radio.shutdown()
            throw RadioError(error.message)
        }
        await radio.markHealthy()
        return radio
    }

    init(adapter: String, options: Options) {
        self.adapter = adapter
        self.adapterPath = "/org/bluez/\(adapter)"
        self.options = options
        self.devices = BlueZDevices(adapterPath: adapterPath)
    }

    private func markHealthy() { healthy = true }

    /// The highest power bluetoothd reports for the adapter while an advertisement that asked
    /// for it is registered (the kernel does not report the power it chose); nil otherwise.
    public var advertisingTransmitPower: Int8? { registered == nil ? nil : transmitPower }

    /// Our unique name on the bus, for diagnostics and tests.
    public var busName: String? { bus?.uniqueName }

    public func shutdown() async {
        guard demand.shutDown() else { return }
        if healthy { try? await apply() }
        recovery?.cancel()
        wake()
        await recovery?.value
        await bus?.close()
        bus = nil
        demand.subscribers.finishAll()
        demand.watchers.finishAll()
    }

    // MARK: bringing bluetoothd to the wanted state

    /// Applies the wanted state if bluetoothd is there. bluetoothd refusing is the caller's error;
    /// bluetoothd being gone is a loss, which the recovery re-applies.
    public func apply() async throws {
        let previous = tail
        let task = Task {
            _ = await previous?.result
            guard self.healthy, let bus = self.bus else { return }
            do {
                try await self.reconcile(bus)
            } catch let error as DBusError where error.meansPeerGone {
                self.lost("\(error)")
            } catch {
                throw RadioError("\(error)")
            }
        }
        tail = task
        try await task.value
    }

    private func call(_ bus: DBusConnection, _ path: String, _ interface: String, _ member: String,
                      _ body: [DBusValue] = []) async throws -> [DBusValue] {
        try await bus.call(BlueZName.service, path, interface, member, body, timeout: options.callTimeout)
    }

    private func reconcile(_ bus: DBusConnection) async throws {
        let wantDiscovery = demand.wantsScanning
        if wantDiscovery, !discovering {
            _ = try await call(bus, adapterPath, BlueZName.adapter, "SetDiscoveryFilter",
                               [.properties(BlueZRequest.discoveryFilter(rssiFloor: options.rssiFloor))])
            _ = try await call(bus, adapterPath, BlueZName.adapter, "StartDiscovery")
            discovering = true
        } else if !wantDiscovery, discovering {
            discovering = false
            _ = try? await call(bus, adapterPath, BlueZName.adapter, "StopDiscovery")
        }
        // Properties are read once at registration, so any change is unregister + register.
        let wanted = demand.advertisement
        if wanted != registered {
            if registered != nil {
                registered = nil
                do {
                    _ = try await call(bus, adapterPath, BlueZName.advertisingManager, "UnregisterAdvertisement",
                                       [.objectPath(Self.advertisementPath)])
                } catch let error as DBusError where error.name == "org.bluez.Error.DoesNotExist" {}
            }
            if let wanted {
                published.withLock { $0 = wanted }
                _ = try await call(bus, adapterPath, BlueZName.advertisingManager, "RegisterAdvertisement",
                                   [.objectPath(Self.advertisementPath), .properties([])])
                registered = wanted
                registrations += 1
                transmitPower = nil
                if wanted.transmitPower == .highest {
                    let capabilities = try? await call(bus, adapterPath, BlueZName.properties, "Get",
                                                       [.string(BlueZName.advertisingManager), .string("SupportedCapabilities")])
                    transmitPower = BlueZRequest.maximumTransmitPower(capabilities: capabilities?.first)
                }
            }
        }
    }

    // MARK: the bus connection

    private func openBus() async throws {
        let bus = try await DBusConnection.open(address: options.busAddress ?? DBusConnection.systemBusAddress)
        self.bus = bus
        let path = Self.advertisementPath
        bus.setHandlers(
            method: { [weak self] call in
                BlueZRequest.answer(call, path: path, advertisement: self?.publishedAdvertisement) {
                    Task { await self?.released() }
                }
            },
            signal: { [weak self] signal in self?.handle(signal) },
            disconnect: { [weak self] in Task { await self?.lost("system bus connection closed") } })
        let bluez = "sender='\(BlueZName.service)'"
        try await bus.addMatch("type='signal',sender='\(BlueZName.bus)',interface='\(BlueZName.bus)',member='NameOwnerChanged',arg0='\(BlueZName.service)'")
        try await bus.addMatch("type='signal',\(bluez),interface='\(BlueZName.objectManager)'")
        try await bus.addMatch("type='signal',\(bluez),interface='\(BlueZName.properties)',member='PropertiesChanged',path_namespace='\(adapterPath)'")
    }

    /// Fails unless org.bluez is on the bus with our adapter; remembers the devices it knows.
    private func checkAdapter() async throws {
        guard let bus else { throw DBusError(name: DBusError.disconnectedName, message: "no bus connection") }
        do {
            _ = try await call(bus, adapterPath, BlueZName.properties, "Get", [.string(BlueZName.adapter), .string("Address")])
        } catch let error as DBusError where error.meansPeerGone || error.name == "org.freedesktop.DBus.Error.InvalidArgs" {
            throw DBusError(name: error.name, message: "no adapter \(adapterPath) on org.bluez (is bluetoothd running? \(error.message))")
        }
        let managed = try await call(bus, "/", BlueZName.objectManager, "GetManagedObjects")
        guard case .dictionary(_, _, let objects)? = managed.first else { return }
        let now = ContinuousClock.now
        for object in objects {
            guard let path = object.key.stringValue,
                  let device = object.value.stringKeyedDictionary?[BlueZName.device]?.stringKeyedDictionary else { continue }
            _ = devices.update(path: path, device, remember: true, receivedAt: now, unixMicroseconds: 0)
        }
    }

    /// Runs on the bus thread: sightings go straight to the streams; the rest hops to the actor.
    private nonisolated func handle(_ signal: DBusMessage) {
        let receivedAt = ContinuousClock.now
        switch (signal.interface, signal.member) {
        case (BlueZName.bus?, "NameOwnerChanged"?):
            guard signal.body.count == 3, signal.body[0].stringValue == BlueZName.service,
                  let old = signal.body[1].stringValue, let new = signal.body[2].stringValue else { return }
            Task { await self.ownerChanged(old: old, new: new) }
        case (BlueZName.objectManager?, "InterfacesAdded"?):
            guard let path = signal.body.first?.stringValue, let interfaces = signal.body.dropFirst().first?.stringKeyedDictionary else { return }
            if path == adapterPath, interfaces[BlueZName.adapter] != nil { Task { await self.wake() } }
            if let properties = interfaces[BlueZName.device]?.stringKeyedDictionary {
                deliver(devices.update(path: path, properties, receivedAt: receivedAt, unixMicroseconds: RadioSighting.unixMicrosecondsNow()))
            }
        case (BlueZName.objectManager?, "InterfacesRemoved"?):
            guard let path = signal.body.first?.stringValue,
                  let interfaces = signal.body.dropFirst().first?.arrayElements?.compactMap(\.stringValue) else { return }
            if path == adapterPath, interfaces.contains(BlueZName.adapter) {
                Task { await self.lost("adapter \(self.adapter) removed") }
            } else if interfaces.contains(BlueZName.device) {
                devices.remove(path: path)
            }
        case (BlueZName.properties?, "PropertiesChanged"?):
            guard let path = signal.path, signal.body.first?.stringValue == BlueZName.device,
                  let changed = signal.body.dropFirst().first?.stringKeyedDictionary else { return }
            deliver(devices.update(path: path, changed, receivedAt: receivedAt, unixMicroseconds: RadioSighting.unixMicrosecondsNow()))
        default:
            return
        }
    }

    private nonisolated func deliver(_ sighting: RadioSighting?) {
        if let sighting { demand.subscribers.yield(.sighting(sighting)) }
    }

    // MARK: loss and recovery

    private func lost(_ reason: String) {
        guard healthy, !demand.isShutdown else { return }
        healthy = false
        registered = nil
        discovering = false
        devices.removeAll()
        demand.broadcast(.lost(RadioLoss(reason: "bluez:\(adapter): \(reason)")))
        if recovery == nil { recovery = Task { await self.recover() } }
    }

    /// A new bluetoothd may take the name straight from the old one (old -> new, no gap): both
    /// mean our registration and discovery are gone.
    private func ownerChanged(old: String, new: String) {
        if !old.isEmpty {
            lost(new.isEmpty ? "org.bluez left the bus (bluetoothd stopped or restarted)" : "org.bluez changed owner (bluetoothd restarted)")
        }
        if !new.isEmpty { wake() }
    }

    /// bluetoothd dropped our advertisement on its own (its Release call); ask for it again.
    private func released() {
        registered = nil
        Task { try? await self.apply() }
    }

    private func recover() async {
        var delay = options.initialBackoff
        while !demand.isShutdown, !Task.isCancelled {
            if await restore() {
                restorations += 1
                recovery = nil
                demand.broadcast(.restored)
                // Anything asked for while the last attempt was under way (a loss now starts a new recovery).
                try? await apply()
                return
            }
            await sleep(delay)
            delay = min(delay * 2, options.maximumBackoff)
        }
        recovery = nil
    }

    /// One attempt: a bus connection, the adapter, then discovery and the advertisement again.
    private func restore() async -> Bool {
        do {
            if bus?.isOpen != true {
                await bus?.close()
                bus = nil
                try await openBus()
            }
            try await checkAdapter()
            guard !demand.isShutdown, let bus else { return false }
            // Not through apply(): while unhealthy every apply() is a no-op, so nothing interleaves.
            try await reconcile(bus)
            healthy = true
            return true
        } catch {
            healthy = false
            registered = nil
            discovering = false
            return false
        }
    }

    /// Sleeps for `delay` or until `wake()` (org.bluez or the adapter came back).
    private func sleep(_ delay: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            wakeUp = continuation
            Task {
                try? await Task.sleep(for: delay)
                self.wake()
            }
        }
    }

    private func wake() {
        wakeUp?.resume()
        wakeUp = nil
    }
}
