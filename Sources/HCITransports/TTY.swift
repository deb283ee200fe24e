import RadioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Opens a UART (USB CDC-ACM dongle, HCI UART) raw, 8N1, with RTS/CTS flow control, at a baud rate.
enum TTY {
    static func speed(_ baud: Int) -> speed_t? {
        switch baud {
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        case 921_600: speed_t(B921600)
        case 1_000_000: speed_t(B1000000)
        case 2_000_000: speed_t(B2000000)
        case 3_000_000: speed_t(B3000000)
        default: nil
        }
    }

    static func open(path: String, baudRate: Int) throws -> Int32 {
        guard let speed = speed(baudRate) else { throw RadioError("\(path): unsupported baud rate \(baudRate)") }
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw RadioError("\(path): cannot open: \(String(cString: strerror(errno)))") }
        var options = termios()
        guard tcgetattr(fd, &options) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw RadioError("\(path): not a terminal: \(reason)")
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD) | tcflag_t(CRTSCTS)
        cfsetispeed(&options, speed)
        cfsetospeed(&options, speed)
        guard tcsetattr(fd, TCSANOW, &options) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw RadioError("\(path): cannot configure: \(reason)")
        }
        tcflush(fd, TCIOFLUSH)
        return fd
    }
}
