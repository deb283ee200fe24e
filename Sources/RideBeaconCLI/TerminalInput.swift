import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Enter presses on standard input, read on a thread of their own (reading blocks).
enum KeyPresses {
    static func enter() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let reader = Thread {
            while readLine() != nil { continuation.yield() }
            continuation.finish()
        }
        reader.start()
        return stream
    }
}

/// SIGINT and SIGTERM as an awaitable event, so commands can stop advertising before exiting.
/// Returns at the first signal, or when the awaiting task is cancelled.
enum Signals {
    static func next() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (signals, continuation) = AsyncStream<Void>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        for await _ in signals { return }
    }
}

/// Standard input as single keystrokes: canonical mode and echo off (signals stay on, so
/// Ctrl-C still stops), restored when the process exits however it exits normally.
enum RawTerminal {
    nonisolated(unsafe) private static var saved: termios?

    /// Switches a terminal on stdin to keystrokes; false (and nothing changed) for a pipe or file.
    static func enterIfTerminal() -> Bool {
        guard isatty(STDIN_FILENO) == 1 else { return false }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return false }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // One byte at a time, blocking until it arrives.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return false }
        saved = original
        atexit { RawTerminal.restore() }
        return true
    }

    static func restore() {
        guard var original = saved else { return }
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &original)
    }

    /// The next typed character (ASCII keys are all the guide has); nil at end of input.
    static func readCharacter() -> Character? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return Character(Unicode.Scalar(byte)) }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
