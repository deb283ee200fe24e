#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import Foundation
import RideStore
import Synchronization

/// The server secret sign-in codes are hashed with. Eight digits are 10^8 guesses: an unkeyed
/// hash of them falls to an offline search in under two minutes on one core, so the store keeps
/// HMAC-SHA256(key, code) and the key lives **outside the database**, in a file of its own
/// (mode 0600, created on first use; refused when group or others may read it). A database leak
/// alone then hands out no working codes. `ridebeacon admin rotate-sign-in-key` replaces the
/// key: every code issued before stops working (issue new ones), and running servers pick the
/// new key up at their next sign-in (the file is re-read when it changes).
public final class SignInKey: Sendable {
    private enum Source: Sendable {
        case file(String)
        case fixed(Data)
    }

    private struct Loaded: Sendable {
        var identity: [Int]
        var key: Data
    }

    private let source: Source
    private let loaded = Mutex<Loaded?>(nil)

    private init(_ source: Source) { self.source = source }

    /// The key in `path` (created, 0600, when missing).
    public static func file(_ path: String) -> SignInKey { SignInKey(.file(path)) }

    /// A key in memory only (tests; codes die with the process).
    public static func ephemeral() -> SignInKey { SignInKey(.fixed(RandomBytes.make(32))) }

    /// The current key; re-read when the file changed.
    public func current() throws -> SymmetricKey {
        switch source {
        case .fixed(let key): return SymmetricKey(data: key)
        case .file(let path):
            try Self.createIfMissing(path)
            var info = stat()
            guard stat(path, &info) == 0 else { throw SignInKeyError("cannot read the sign-in key file \(path): \(String(cString: strerror(errno)))") }
            guard info.st_mode & 0o077 == 0 else {
                throw SignInKeyError("the sign-in key file \(path) is readable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it, then rotate it")
            }
            let identity = [Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
            if let cached = loaded.withLock({ $0 }), cached.identity == identity { return SymmetricKey(data: cached.key) }
            let key = try Self.read(path)
            loaded.withLock { $0 = Loaded(identity: identity, key: key) }
            return SymmetricKey(data: key)
        }
    }

    /// A new random key in `path`, written to a 0600 temporary file and renamed over the old one.
    public static func rotate(_ path: String) throws {
        try write(SymmetricKey(size: .bits256), to: path, replacing: true)
    }

    static func createIfMissing(_ path: String) throws {
        guard access(path, F_OK) != 0 else { return }
        try write(SymmetricKey(size: .bits256), to: path, replacing: false)
    }

    private static func write(_ key: SymmetricKey, to path: String, replacing: Bool) throws {
        let text = key.withUnsafeBytes { RateLimits.hex($0) } + "\n"
        let temporary = path + ".new-\(getpid())"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SignInKeyError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        fchmod(fd, 0o600)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        Glibc.close(fd)
        guard written == bytes.count, synced == 0 else {
            unlink(temporary)
            throw SignInKeyError("cannot write \(temporary)")
        }
        if replacing {
            guard rename(temporary, path) == 0 else {
                unlink(temporary)
                throw SignInKeyError("cannot replace \(path): \(String(cString: strerror(errno)))")
            }
        } else {
            // Two processes creating it at once: the first link wins, both then read that one.
            let linked = link(temporary, path)
            unlink(temporary)
            guard linked == 0 || errno == EEXIST else { throw SignInKeyError("cannot create \(path): \(String(cString: strerror(errno)))") }
        }
    }

    private static func read(_ path: String) throws -> Data {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw SignInKeyError("cannot read the sign-in key file \(path)") }
        let hex = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard hex.count == 64 else { throw SignInKeyError("the sign-in key file \(path) must hold 64 hex digits; rotate it to make a new one") }
        var bytes = [UInt8]()
        var index = 0
        while index < hex.count {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else {
                throw SignInKeyError("the sign-in key file \(path) must hold 64 hex digits; rotate it to make a new one")
            }
            bytes.append(byte)
            index += 2
        }
        return Data(bytes)
    }
}

public struct SignInKeyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// What the store keeps of a sign-in code: its HMAC under the server's `SignInKey`. Shared by
/// the API and `ridebeacon admin invite`.
public enum SignInCodeHash {
    public static func of(_ digits: String, key: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("ridebeacon-sign-in/v2:\(digits)".utf8), using: key))
    }

    /// A fresh code's record and digits: now (whole milliseconds, like the store) to 24 h later.
    public static func issue(accountID: String, by issuer: String, now: Date) -> (record: SignInCodeRecord, digits: String) {
        let created = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        let record = SignInCodeRecord(id: UUID().uuidString.lowercased(), accountID: accountID, issuedBy: issuer,
                                      createdAt: created, expiresAt: created.addingTimeInterval(SignInCodeText.lifetime))
        return (record, SignInCodeText.random())
    }

    /// At most this many codes per account per 24 hours.
    public static let perDay = 10
    /// At most this many codes per issuer per 24 hours, so a leaked admin token cannot mint
    /// codes without end (finding 11: the cap was per target only).
    public static let perIssuerPerDay = 50
}

/// Who may issue sign-in codes for whom: the one place this is decided (SECURITY.md, "Sign-in
/// codes"). Only admins. A dispatcher who could mint a code for a passenger and one for the
/// driver could redeem both and act as either: read the ride key and post both touch proofs
/// (the review confirmed a ride that way). Admins can already issue tokens for any account, so
/// codes give them nothing new; every code issued and every sign-in is audit-logged with its
/// issuer, and the account's holder is told of each new sign-in (the passenger page names every
/// other sign-in of the last 7 days; `ridebeacon tokens list` and `GET /v1/tokens` list them all).
public enum SignInCodePolicy {
    public static func mayIssue(by issuer: Role, for account: Role) -> Bool {
        issuer == .admin
    }

    public static let refusal = "only an admin may issue sign-in codes (a dispatcher who could would be able to sign in as the passenger or driver)"
}
