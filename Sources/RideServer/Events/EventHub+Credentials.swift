import Foundation
import RideStore

/// The token an event stream was opened with. A stream outlives the request that
/// authenticated it, so revocation and expiry must reach it too (OWASP ASVS: ending a session
/// ends every channel of it), and the per-token stream cap counts by it.
public struct StreamCredential: Sendable, Equatable {
    /// SHA-256 of the token secret, as stored; never the secret itself.
    public var secretHash: Data
    public var expiresAt: Date?

    public init(secretHash: Data, expiresAt: Date?) {
        self.secretHash = secretHash
        self.expiresAt = expiresAt
    }
}

/// Why the server ended a stream; sent as a final `event: error` before the stream closes.
public enum StreamEnd: Sendable, Equatable {
    case tokenRevoked
    case tokenExpired
    /// The reader fell `listenerBufferLimit` messages behind; it should resume (Last-Event-ID).
    case tooSlow

    var code: APIErrorCode {
        switch self {
        case .tokenRevoked: .tokenRevoked
        case .tokenExpired: .tokenExpired
        case .tooSlow: .streamTooSlow
        }
    }

    var message: String {
        switch self {
        case .tokenRevoked: "the token of this stream was revoked; sign in again"
        case .tokenExpired: "the token of this stream has expired; sign in again"
        case .tooSlow: "this stream fell too far behind the live events; reconnect with Last-Event-ID to resume from the history"
        }
    }
}

extension EventHub {
    /// Asks for every open stream's token to be re-read from the store soon: after a
    /// revocation here, a revocation signal from another server, or the periodic safety check.
    public nonisolated func credentialsChanged() {
        credentialCheckSink.yield()
    }

    /// Tokens were revoked (here or, by the store's signal, on another server): accounts
    /// remembered for them are forgotten and their streams re-checked, both at once.
    public nonisolated func tokensRevoked() {
        onTokensRevoked()
        credentialsChanged()
    }

    func recheckOnSignals() async {
        for await _ in credentialChecks {
            await recheckCredentials()
        }
    }

    /// One query per distinct token (revocations are rare; this runs only on their signal and
    /// on the slow safety interval). A failed read leaves streams open: the next check retries.
    func recheckCredentials() async {
        let hashes = Set(listeners.values.compactMap { $0.credential?.secretHash })
        for hash in hashes {
            do {
                let token = try await store.token(secretHash: hash)
                if let token, token.revokedAt == nil {
                    if let expiry = token.expiresAt, expiry <= now() { end(streamsOf: hash, .tokenExpired) }
                } else {
                    end(streamsOf: hash, .tokenRevoked)
                }
            } catch {
                logger.warning("re-checking a stream's token failed; retrying later", metadata: ["error": .string("\(error)")])
            }
        }
    }

    /// Expiry is known when the stream opens, so it needs no query: a comparison per tick.
    func endExpiredStreams() {
        let time = now()
        let expired = Set(listeners.values.compactMap { listener in
            listener.credential.flatMap { credential in credential.expiresAt.map { $0 <= time } == true ? credential.secretHash : nil }
        })
        for hash in expired { end(streamsOf: hash, .tokenExpired) }
    }

    private func end(streamsOf hash: Data, _ reason: StreamEnd) {
        for (id, listener) in listeners where listener.credential?.secretHash == hash {
            listener.queue.finish(last: .ended(reason))
            unregister(id)
            endedStreams += 1
        }
    }
}
