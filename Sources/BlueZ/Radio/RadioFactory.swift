/// Opens the radio a `--radio` value names.
public enum RadioFactory {
    public static func transport(for selection: RadioSelection) throws -> any HCITransport {
        switch selection {
        case .h4(.tcp(let host, let port)):
            return NIOTransport(.tcp(host: host, port: port))
        case .h4(.unix(let path)):
            return NIOTransport(.unix(path: path))
        case .h4(.tty(let path, let baud)):
            return NIOTransport(.descriptor(name: "tty:\(path)") { try TTY.open(path: path, baudRate: baud) })
        case .hci(let device):
            return NIOTransport(.descriptor(name: "hci\(device)") { try HCIUserChannel.open(device: device) })
        case .sim:
            return SimTransport(air: .shared)
        case .bluez:
            throw RadioError("--radio \(selection) is not an HCI transport")
        }
    }

    public static func open(_ selection: RadioSelection, options: HCIRadio.Options = HCIRadio.Options()) async throws -> any Radio {
        switch selection {
        case .bluez(let adapter):
            return try await BlueZRadio.connect(adapter: adapter)
        default:
            return try await HCIRadio.connect(try transport(for: selection), options: options)
        }
    }
}
