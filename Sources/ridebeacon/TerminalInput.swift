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
