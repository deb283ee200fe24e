import RadioCore
import CBluetooth
#if canImport(Glibc)
import Glibc
#endif

/// `hci:hciN`: the kernel's HCI user channel (HCI_CHANNEL_USER), exclusive access to an adapter
/// that bluetoothd has released (`btmgmt -i hciN power off`, or not managed). Packets arrive one
/// per read with their H4 indicator first, so the H4 host drives it unchanged.
/// The only file that sees libbluetooth's headers.
enum HCIUserChannel {
    static func open(device: Int) throws -> Int32 {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), BTPROTO_HCI)
        guard fd >= 0 else {
            throw RadioError("hci\(device): cannot open an HCI socket: \(String(cString: strerror(errno))) (no Bluetooth in this kernel?)")
        }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(device)
        address.hci_channel = UInt16(HCI_CHANNEL_USER)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard bound == 0 else {
            let reason = errno == EBUSY ? "adapter is in use (power it off in bluetoothd first: btmgmt -i hci\(device) power off)"
                : String(cString: strerror(errno))
            close(fd)
            throw RadioError("hci\(device): cannot take the user channel: \(reason)")
        }
        return fd
    }
}
