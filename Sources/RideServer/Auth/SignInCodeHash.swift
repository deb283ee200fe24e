import Crypto
import Foundation
import RideStore

/// What the store keeps of a sign-in code: its SHA-256, so a database leak hands out no
/// working codes. Shared by the API and `ridebeacon admin invite`.
public enum SignInCodeHash {
    public static func of(_ digits: String) -> Data {
        Data(SHA256.hash(data: Data("ridebeacon-sign-in:\(digits)".utf8)))
    }

    /// A fresh code's record and digits: now (whole milliseconds, like the store) to 24 h later.
    public static func issue(accountID: String, by issuer: String, now: Date) -> (record: SignInCodeRecord, digits: String) {
        let created = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        let record = SignInCodeRecord(id: UUID().uuidString.lowercased(), accountID: accountID, issuedBy: issuer,
                                      createdAt: created, expiresAt: created.addingTimeInterval(SignInCodeText.lifetime))
        return (record, SignInCodeText.random())
    }

    /// At most this many codes per account per 24 hours, so a leaked dispatcher token cannot
    /// mint codes without end.
    public static let perDay = 10
}
