/// A `--radio` value (docs/ARCHITECTURE.md, "Radio selection"): `bluez[:hci0]`, `hci:hci0`, `h4:tcp:HOST:PORT`,
/// `h4:unix:PATH`, `h4:tty:/dev/ttyACM0[:BAUD]`, `sim`.
public enum RadioSelection: Equatable, Sendable, CustomStringConvertible {
    /// bluetoothd's D-Bus API on `adapter` (`bluez`, `bluez:hci1`).
    case bluez(adapter: String)
    /// The raw HCI user channel of device N (`hci:hci0`).
    case hci(device: Int)
    /// H4 packets over a byte stream (`h4:tcp:…`, `h4:unix:…`, `h4:tty:…`).
    case h4(H4Endpoint)
    /// The in-process simulated controller.
    case sim

    /// The tty rate when `h4:tty:PATH` names none.
    public static let defaultBaudRate = 115_200

    /// Parses a `--radio` value; a bad one throws a `RadioError` naming what was expected:
    ///
    /// ```swift
    /// let selection = try RadioSelection(parsing: "h4:tcp:127.0.0.1:9000")   // .h4(.tcp(host: "127.0.0.1", port: 9000))
    /// ```
    public init(parsing text: String) throws(RadioError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let rest = parts.count > 1 ? parts[1] : nil
        switch parts[0] {
        case "bluez":
            let adapter = rest ?? "hci0"
            guard Self.hciIndex(adapter) != nil else { throw RadioError("--radio \(text): adapter must be hciN") }
            self = .bluez(adapter: adapter)
        case "hci":
            guard let rest, let index = Self.hciIndex(rest) else { throw RadioError("--radio \(text): expected hci:hciN") }
            self = .hci(device: index)
        case "sim":
            guard rest == nil else { throw RadioError("--radio \(text): sim takes no arguments") }
            self = .sim
        case "h4":
            guard let rest else { throw RadioError("--radio \(text): expected h4:tcp:HOST:PORT, h4:unix:PATH or h4:tty:DEVICE[:BAUD]") }
            self = .h4(try H4Endpoint(parsing: rest, whole: text))
        default:
            throw RadioError("--radio \(text): unknown radio; use bluez[:hci0], hci:hci0, h4:tcp:HOST:PORT, h4:unix:PATH, h4:tty:DEVICE[:BAUD] or sim")
        }
    }

    static func hciIndex(_ name: String) -> Int? {
        guard name.hasPrefix("hci"), let index = Int(name.dropFirst(3)), index >= 0 else { return nil }
        return index
    }

    /// The value as `--radio` takes it (it parses back to the same selection).
    public var description: String {
        switch self {
        case .bluez(let adapter): "bluez:\(adapter)"
        case .hci(let device): "hci:hci\(device)"
        case .h4(let endpoint): "h4:\(endpoint)"
        case .sim: "sim"
        }
    }
}

/// Where an H4 byte stream comes from.
public enum H4Endpoint: Equatable, Sendable, CustomStringConvertible {
    /// A TCP connection (Bumble's controllers listen so); an IPv6 host is written in brackets.
    case tcp(host: String, port: Int)
    /// A unix-domain socket.
    case unix(path: String)
    /// A serial device (a UART dongle) at `baudRate`.
    case tty(path: String, baudRate: Int)

    /// The rates a tty transport can set (termios B* constants).
    public static let supportedBaudRates: [Int] = [9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600,
                                                   1_000_000, 2_000_000, 3_000_000]

    init(parsing rest: String, whole: String) throws(RadioError) {
        let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let value = parts.count > 1 ? parts[1] : ""
        switch parts[0] {
        case "tcp":
            // HOST may be an IPv6 literal with colons: the port is after the last one.
            guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
                  (1...65535).contains(port), colon != value.startIndex else {
                throw RadioError("--radio \(whole): expected h4:tcp:HOST:PORT")
            }
            var host = String(value[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            self = .tcp(host: host, port: port)
        case "unix":
            guard !value.isEmpty else { throw RadioError("--radio \(whole): expected h4:unix:PATH") }
            self = .unix(path: value)
        case "tty":
            guard value.hasPrefix("/") else { throw RadioError("--radio \(whole): expected h4:tty:/dev/DEVICE[:BAUD]") }
            if let colon = value.lastIndex(of: ":"), let baud = Int(value[value.index(after: colon)...]) {
                guard Self.supportedBaudRates.contains(baud) else {
                    throw RadioError("--radio \(whole): unsupported baud rate \(baud)")
                }
                self = .tty(path: String(value[..<colon]), baudRate: baud)
            } else {
                self = .tty(path: value, baudRate: RadioSelection.defaultBaudRate)
            }
        default:
            throw RadioError("--radio \(whole): h4 needs tcp:HOST:PORT, unix:PATH or tty:DEVICE[:BAUD]")
        }
    }

    /// The endpoint as it follows `h4:` in a `--radio` value.
    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        case .tty(let path, let baud): "tty:\(path):\(baud)"
        }
    }
}
