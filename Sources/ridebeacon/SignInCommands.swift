import ArgumentParser
import Foundation
import Guide
import RideClient
import RideServer
import RideStore

/// `ridebeacon admin invite ACCOUNT`: a one-time sign-in code instead of a 43-character token.
extension Admin {
    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a one-time sign-in code for an account (prints the code: eight digits, valid 24 hours).",
            discussion: """
                Hand the code over (read it out, or send it); its holder runs `ridebeacon sign-in CODE`. \
                It works once, for 24 hours; at most 10 are issued per account per day. Only its hash is stored.
                """)

        @Argument(help: "Account id (from `ridebeacon admin list-accounts`).")
        var account: String
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                let (record, digits) = SignInCodeHash.issue(accountID: account, by: AdminAudit.cliOperator, now: Date())
                _ = try await store.addSignInCode(record, codeHash: SignInCodeHash.of(digits), perDay: SignInCodeHash.perDay)
                audit("sign-in-code.issue", ["account_id": account, "code_id": record.id])
                print(SignInCodeText.grouped(digits))
                printToStandardError("Sign-in code for account \(account), valid until \(PlainTable.time(record.expiresAt)) tomorrow; "
                                     + "run `ridebeacon sign-in \(SignInCodeText.grouped(digits)) --server URL` on the new device.")
            }
        }
    }
}

/// `ridebeacon sign-in CODE`: exchanges a sign-in code for a token kept in the settings file.
struct SignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign in with a one-time code; the token is saved in your settings file (readable only by you).",
        discussion: """
            The code is the eight digits an admin or dispatcher gave you (spaces and hyphens are fine). \
            The server comes from --server, RIDEBEACON_SERVER or the settings file, and is saved with the token.
            """)

    @Argument(help: ArgumentHelp("The eight-digit sign-in code.", valueName: "CODE"))
    var code: [String]
    @Option(help: ArgumentHelp("Ride service URL. Default: RIDEBEACON_SERVER, then the settings file.", valueName: "URL"))
    var server: String?
    @Flag(help: "Allow a plain http:// server URL other than this machine.")
    var insecureHttp = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings: Settings
        do { settings = try loadSettings(environment: environment) } catch { fail(error.message) }
        guard let digits = SignInCodeText.normalized(code.joined()) else {
            fail("the sign-in code must be eight digits, like 4821 0937")
        }
        guard let server = server ?? environment["RIDEBEACON_SERVER"].flatMap({ $0.isEmpty ? nil : $0 }) ?? settings.server else {
            fail("no ride service: pass --server URL, set RIDEBEACON_SERVER, or run `ridebeacon settings set --server URL`")
        }
        var configuration = RideServiceClient.Configuration()
        configuration.allowsInsecureHTTP = insecureHttp
        let signedIn: SignedIn
        do {
            signedIn = try await RideServiceClient.signIn(server: server, code: digits, configuration: configuration)
        } catch {
            fail(describe(error, server: server))
        }
        settings.server = server
        settings.token = signedIn.token
        let path = Settings.defaultPath(environment: environment)
        do { try settings.save(to: path) } catch { fail(String(describing: error)) }
        Say.line("Signed in as \(signedIn.account.displayName), \(signedIn.account.role.rawValue). Token saved in \(path).")
    }

    private func fail(_ message: String) -> Never {
        StandardError.writeLine("ridebeacon: \(message)")
        Foundation.exit(1)
    }
}

/// `ridebeacon tokens list|revoke`: your own tokens, one at a time.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "List your tokens, or revoke one (for example a lost phone's).",
        subcommands: [List.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Your tokens, newest first: TOKEN, CREATED, STATUS (this one, active, revoked or expired).")

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let now = Date()
                let rows = try await client.tokens().map { token -> [String] in
                    let status = token.revokedAt != nil ? "revoked"
                        : token.expiresAt.map { $0 <= now } == true ? "expired"
                        : token.current ? "this one" : "active"
                    return [token.id, PlainTable.date(token.createdAt), status]
                }
                Say.line(PlainTable.render(header: ["TOKEN", "CREATED", "STATUS"], rows: rows))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke one of your tokens by its id (from `ridebeacon tokens list`).")

        @Argument(help: ArgumentHelp("The token's id.", valueName: "TOKEN"))
        var token: String
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let revoked = try await client.revokeToken(token)
                Say.line("Token \(revoked.id) revoked\(revoked.current ? " (it was this device's; sign in again to continue)" : "").")
            }
        }
    }
}
