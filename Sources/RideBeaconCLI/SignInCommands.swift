#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Guide
import Phrasebook
import RideClient
import RideServer
import RideStore

/// `ridebeacon admin invite ACCOUNT`: a one-time sign-in code instead of a 43-character token.
extension Admin {
    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a one-time sign-in code for an account (prints the code: eight digits, valid 24 hours).",
            discussion: """
                Hand the code over (read it out, or send it); its holder runs `ridebeacon sign-in` and types it. \
                It works once, for 24 hours; at most 10 are issued per account per day. Only its keyed hash is stored \
                (the key is the server's sign-in key file, which this command must be able to read).
                """)

        @Argument(help: ArgumentHelp("The account's name (any case), or the start of its id (from `ridebeacon admin list-accounts`).", valueName: "ACCOUNT"))
        var account: String
        @OptionGroup var options: DatabaseOptions
        @OptionGroup var signInKey: SignInKeyOptions

        func run() async throws {
            try await options.withStore { store in
                // After the store opened: in the wrong folder no key file is made either.
                let key = try signInKey.key(database: options.database).current()
                let chosen = try Admin.accounts(try await store.accounts()).pick(account)
                let account = chosen.id
                let (record, digits) = SignInCodeHash.issue(accountID: account, by: AdminAudit.cliOperator, now: Date())
                _ = try await store.addSignInCode(record, codeHash: SignInCodeHash.of(digits, key: key), perDay: SignInCodeHash.perDay,
                                                  perIssuerPerDay: SignInCodeHash.perIssuerPerDay)
                audit("sign-in-code.issue", ["account_id": account, "code_id": record.id, "issued_by": AdminAudit.cliOperator])
                print(SignInCodeText.grouped(digits))
                let book = PersonalBook.current
                printToStandardError(book(.adminInviteIssued, ["name": .text(chosen.displayName), "role": .text(Admin.roleWord(chosen.role, in: book)),
                                                               "time": .text(PlainTable.time(record.expiresAt))]))
            }
        }
    }

    /// `ridebeacon admin rotate-sign-in-key`: a new key; codes issued before stop working.
    struct RotateSignInKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-sign-in-key",
            abstract: "Replace the sign-in code key (after a leak, or routinely); every code issued before stops working.",
            discussion: """
                Writes a new random key to the key file (mode 0600, replaced atomically). Running servers use it from \
                their next sign-in. Codes not yet used are refused from then on: issue new ones. Tokens are not affected.
                """)

        @OptionGroup var options: DatabaseOptions
        @OptionGroup var signInKey: SignInKeyOptions

        func run() async throws {
            let path = signInKey.path(database: options.database)
            do { try SignInKey.rotate(path) } catch { throw ValidationError(String(describing: error)) }
            audit("sign-in-key.rotate", ["key_file": path])
            printToStandardError(PersonalBook.current(.adminSignInKeyRotated, ["path": .text(path)]))
        }
    }
}

/// `ridebeacon sign-in`: exchanges a sign-in code for a token kept in the settings file. The
/// code is read from standard input (typed at a prompt, or piped) or from `--code-file`, never
/// from the command line, where every user of the machine can read it in ps.
struct SignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign in with a one-time code; the token is saved in your settings file (readable only by you).",
        discussion: """
            Type the eight digits an admin gave you when asked (spaces and hyphens are fine), or pipe them in, \
            or name a file holding them with --code-file. The server comes from --server, RIDEBEACON_SERVER or \
            the settings file, and is saved with the token.
            """)

    @Argument(help: ArgumentHelp("Not accepted: the code on the command line is visible to every user (ps). Type it when asked, pipe it in, or use --code-file.", valueName: "CODE"))
    var code: [String] = []
    @Option(help: ArgumentHelp("Read the code from this file instead of standard input.", valueName: "PATH"))
    var codeFile: String?
    @Option(help: ArgumentHelp("Ride service URL. Default: RIDEBEACON_SERVER, then the settings file.", valueName: "URL"))
    var server: String?
    @Flag(help: "Allow a plain http:// server URL other than this machine.")
    var insecureHttp = false
    @Option(help: ArgumentHelp("What to call this device in `ridebeacon tokens list` (at most 100 characters). Default: this machine's name.", valueName: "NAME"))
    var device: String?

    func validate() throws {
        if let device {
            let trimmed = device.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw ValidationError("--device needs a name, like \"Ana's phone\"") }
            guard trimmed.count <= SignInBody.maxDeviceNameLength, trimmed.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
                throw ValidationError("--device must be at most \(SignInBody.maxDeviceNameLength) characters, without control characters")
            }
        }
    }

    /// The machine's name, which is what people call a laptop or a phone running Linux.
    static func hostname() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : String(name.prefix(SignInBody.maxDeviceNameLength))
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var settings: Settings
        do { settings = try loadSettings(environment: environment) } catch { fail(error.message) }
        guard code.isEmpty else {
            fail(PersonalBook.current(.cliSignInCodeOnCommandLine))
        }
        let typed: String
        if let codeFile {
            guard let text = try? String(contentsOfFile: codeFile, encoding: .utf8) else { fail(PersonalBook.current(.cliSignInCodeFileUnreadable, ["path": .text(codeFile)])) }
            typed = text
        } else {
            if isatty(STDIN_FILENO) != 0 { FileDescriptor.writeAll(STDERR_FILENO, Array("Sign-in code: ".utf8)) }
            typed = readLine(strippingNewline: true) ?? ""
        }
        guard let digits = SignInCodeText.normalized(typed.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            fail(PersonalBook.current(.cliSignInCodeDigits))
        }
        guard let server = server ?? environment["RIDEBEACON_SERVER"].flatMap({ $0.isEmpty ? nil : $0 }) ?? settings.server else {
            fail(PersonalBook.current(.cliNoServer))
        }
        var configuration = RideServiceClient.Configuration()
        configuration.allowsInsecureHTTP = insecureHttp
        let signedIn: SignedIn
        do {
            let deviceName = device?.trimmingCharacters(in: .whitespaces) ?? Self.hostname()
            signedIn = try await RideServiceClient.signIn(server: server, code: digits, deviceName: deviceName, configuration: configuration)
        } catch {
            fail(describe(error, server: server))
        }
        settings.server = server
        settings.token = signedIn.token
        let path = Settings.defaultPath(environment: environment)
        do { try settings.save(to: path) } catch { fail(String(describing: error)) }
        // In the account's language when it has one (the rule of `DeviceLanguage`), asked with the new token.
        var book = PersonalBook.current
        if let client = try? RideServiceClient(server: server, token: signedIn.token, configuration: configuration) {
            book = await DeviceLanguage.book(settings: settings, using: client)
            await client.shutdown()
        }
        Say.line(book(.cliSignedIn, ["name": .text(signedIn.account.displayName), "role": .text(Self.roleName(signedIn.account.role, in: book)),
                                     "path": .text(path)]))
    }

    /// "passenger"; "cuenta de pasajero".
    static func roleName(_ role: Role, in book: Phrasebook) -> String {
        switch role {
        case .passenger: book(.cliRolePassenger)
        case .driver: book(.cliRoleDriver)
        case .dispatcher: book(.cliRoleDispatcher)
        case .admin: book(.cliRoleAdmin)
        }
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
            abstract: "Your tokens, newest first: TOKEN (a short handle), DEVICE, CREATED, STATUS (this one, active, revoked or expired).")

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let now = Date()
                let rows = try await client.tokens().map { token -> [String] in
                    [token.handle, token.deviceName ?? "—", PlainTable.date(token.createdAt), TokensCommand.status(token, now: now)]
                }
                Say.line(PlainTable.render(header: ["TOKEN", "DEVICE", "CREATED", "STATUS"], rows: rows))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke one of your tokens: its handle from `ridebeacon tokens list` (or any unique start of its id), or its device name.")

        @Argument(help: ArgumentHelp("The token's handle (like 3f9a1c), a unique start of its id, or its device name.", valueName: "TOKEN"))
        var token: String
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let now = Date()
                let tokens = try await client.tokens()
                let chosen = try TokensCommand.whichOne(tokens, now: now).pick(token)
                let revoked = try await client.revokeToken(chosen.id)
                let device = chosen.deviceName.map { " (\($0))" } ?? ""
                let book = await PersonalBook.book(using: client)
                Say.line(book(revoked.current ? .cliTokenRevokedThisDevice : .cliTokenRevoked, ["token": .text(chosen.handle + device)]))
            }
        }
    }

    static func status(_ token: TokenInfo, now: Date) -> String {
        token.revokedAt != nil ? "revoked" : token.expiresAt.map { $0 <= now } == true ? "expired" : token.current ? "this one" : "active"
    }

    /// Tokens by handle, id start or device name; a listing says handle, device, created, status.
    static func whichOne(_ tokens: [TokenInfo], now: Date) -> WhichOne<TokenInfo> {
        WhichOne(kind: "token", items: tokens, id: \.id, name: \.deviceName,
                 describe: { "\($0.handle) (\($0.deviceName ?? "no device name"), \(PlainTable.date($0.createdAt)), \(status($0, now: now)))" },
                 listCommand: "ridebeacon tokens list")
    }
}
