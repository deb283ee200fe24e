import RadioCore

extension RadioSelection {
    /// The HCI byte transport this `--radio` value names (`h4:…`, `hci:hciN`, `sim`); `bluez`
    /// is not one (it is a D-Bus radio, `BlueZRadio`).
    public func hciTransport() throws -> any HCITransport {
        switch self {
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
            throw RadioError("--radio \(self) is not an HCI transport")
        }
    }
}
