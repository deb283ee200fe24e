import ArgumentParser
import Foundation
import Logging
import Phrasebook
import RideServer
import RideStore

/// Account administration straight on the store, for the first admin and for scripts.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage accounts and tokens directly in the database.",
        subcommands: [CreateAccount.self, CreateToken.self, Invite.self, RotateSignInKey.self, ListAccounts.self, ListTokens.self, RevokeToken.self, RevokeTokens.self,
                      ConfirmRide.self, PurgeLocations.self, Backup.self]
    )
}

struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("database"), help: "sqlite:PATH or postgres://user:password@host:port/database. Default: RIDEBEACON_DATABASE, then sqlite:./ridebeacon.sqlite (prefer the variable for a URL with a password: a command line is visible to every user in ps).")
    var databaseOption: String?

    var database: String { DatabaseLocation.resolve(databaseOption) }

    /// Runs `body` on the opened store and closes it, reporting store errors as one line. Only
    /// `creating` (the first account of a new deployment) may make a SQLite file that is not
    /// there: any other command run in the wrong folder would answer from an empty database
    /// it just made ("ride not found") and leave that file behind (issue 37, point 10).
    func withStore<T>(creating: Bool = false, _ body: (any Store) async throws -> T) async throws -> T {
        if let path = Self.sqlitePath(database), !FileManager.default.fileExists(atPath: path) {
            guard creating else {
                throw ValidationError(PersonalBook.current(.adminNoDatabase, ["path": .text(path)]))
            }
            StandardError.writeLine("ridebeacon: " + PersonalBook.current(.adminCreatingDatabase, ["path": .text(path)]))
        }
        let store = try await openStore(database)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch let error as StoreError {
            await store.close()
            throw ValidationError(error.readable)
        } catch {
            await store.close()
            throw error
        }
    }
}

extension DatabaseOptions {
    /// The file of a `sqlite:PATH` location (nil for PostgreSQL and in-memory databases).
    static func sqlitePath(_ location: String) -> String? {
        guard location.hasPrefix("sqlite:") else { return nil }
        let path = String(location.dropFirst("sqlite:".count))
        return path.isEmpty || path == ":memory:" ? nil : path
    }
}

struct TokenExpiryOption: ParsableArguments {
    @Option(help: "The token stops working after this many days (1 to 3650; default 365).")
    var expiresInDays: Int?

    func validate() throws {
        if let days = expiresInDays, !TokenExpiry.days.contains(days) {
            throw ValidationError(PersonalBook.current(.adminExpiryRange))
        }
    }

    /// Every token expires by policy: `TokenExpiry.adminIssuedDays` unless given.
    var expiresAt: Date { TokenExpiry.date(afterDays: expiresInDays ?? TokenExpiry.adminIssuedDays) }
}

/// Where the database is: `--database`, else RIDEBEACON_DATABASE (so a PostgreSQL password
/// need not be on the command line, which every user sees in ps), else the default file.
enum DatabaseLocation {
    static func resolve(_ option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        option ?? environment["RIDEBEACON_DATABASE"].flatMap { $0.isEmpty ? nil : $0 } ?? StoreLocation.defaultValue
    }
}

/// The sign-in key file (`SignInKey`): `--sign-in-key-file`, else RIDEBEACON_SIGN_IN_KEY_FILE,
/// else beside a SQLite database (`PATH.sign-in-key`), else ./ridebeacon.sign-in-key. Servers
/// sharing one PostgreSQL database must share one key file too.
struct SignInKeyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The sign-in code key file (created 0600 when missing). Default: RIDEBEACON_SIGN_IN_KEY_FILE, else beside a sqlite: database (PATH.sign-in-key), else ./ridebeacon.sign-in-key.", valueName: "PATH"))
    var signInKeyFile: String?

    func path(database: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let signInKeyFile { return signInKeyFile }
        if let configured = environment["RIDEBEACON_SIGN_IN_KEY_FILE"], !configured.isEmpty { return configured }
        if database.hasPrefix("sqlite:"), database.count > "sqlite:".count, database != "sqlite::memory:" {
            return String(database.dropFirst("sqlite:".count)) + ".sign-in-key"
        }
        return "./ridebeacon.sign-in-key"
    }

    /// The key, or a one-line reason it cannot be used.
    func key(database: String) throws -> SignInKey {
        let key = SignInKey.file(path(database: database))
        do { _ = try key.current() } catch { throw ValidationError(String(describing: error)) }
        return key
    }
}

func printToStandardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// One audit line on stderr per admin action done here (see `AdminAudit`).
func audit(_ action: String, _ details: [String: String]) {
    AdminAudit.record(AuditLog.logger(), action: action, actor: AdminAudit.cliOperator, via: .cli, details: details)
}

/// Where the admin CLI's audit lines go (issue 25: to the log, not the terminal): the file
/// `RIDEBEACON_AUDIT_LOG` names, else `$XDG_STATE_HOME/ridebeacon/audit.log` (by default
/// `~/.local/state/ridebeacon/audit.log`), one JSON line each, appended. `RIDEBEACON_AUDIT_LOG=-`
/// sends them to standard error (a service manager's journal); so does a log that cannot be opened.
enum AuditLog {
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let named = environment["RIDEBEACON_AUDIT_LOG"], !named.isEmpty { return named == "-" ? nil : named }
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { $0 + "/.local/state" }
        return state.map { $0 + "/ridebeacon/audit.log" }
    }

    static func logger(environment: [String: String] = ProcessInfo.processInfo.environment) -> Logger {
        guard let path = path(environment: environment), let file = open(path) else { return AdminAudit.cliLogger }
        return Logger(label: "ridebeacon.audit") { label in
            JSONLogHandler(label: label, level: .notice) { line in
                file.seekToEndOfFile()
                file.write(Data(line))
            }
        }
    }

    private static func open(_ path: String) -> FileHandle? {
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else { return nil }
        }
        return FileHandle(forWritingAtPath: path)
    }
}

extension Admin {
    struct CreateAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account and print its first token (stdout: only the token line).")

        @Option(help: "passenger, driver, dispatcher or admin.")
        var role: String
        @Option(help: "Display name (at most 200 characters).")
        var name: String
        @Option(help: "Drivers only: the car as free text, e.g. \"blue Toyota Prius\" (split into colour, make and model when it can be). Or give --model and the other parts.")
        var vehicle: String?
        @Option(help: "Drivers only: the car's colour, e.g. blue.")
        var colour: String?
        @Option(help: "Drivers only: the car's make, e.g. Toyota.")
        var make: String?
        @Option(help: "Drivers only: the car's model, e.g. Prius (needed with --colour, --make or --plate).")
        var model: String?
        @Option(help: "Drivers only: the number plate, e.g. \"AB12 CDE\" (1 to 12 letters, digits, spaces, hyphens).")
        var plate: String?

        /// The car part by part, when any part was given.
        var vehicleDetails: Vehicle? {
            model.map { Vehicle(colour: colour, make: make, model: $0, plate: plate) }
        }
        @OptionGroup var expiry: TokenExpiryOption
        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            let book = PersonalBook.current
            guard let role = Role(rawValue: role) else {
                // The values themselves are what --role takes, so they stay as typed.
                throw ValidationError(book(.adminRoleMustBe, ["roles": .text(Role.allCases.map(\.rawValue).joined(separator: ", "))]))
            }
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 200 else {
                throw ValidationError(book(.adminNameLength))
            }
            if let vehicle, vehicle.trimmingCharacters(in: .whitespaces).isEmpty || vehicle.count > 200 || role != .driver {
                throw ValidationError(book(.adminVehicleDriversOnly))
            }
            let parts = [colour, make, model, plate].contains { $0 != nil }
            if parts && role != .driver {
                throw ValidationError(book(.adminCarPartsDriversOnly))
            }
            if parts && vehicle != nil {
                throw ValidationError(book(.adminVehicleTwice))
            }
            if parts && model == nil {
                throw ValidationError(book(.adminModelNeeded))
            }
            if let plate, !Vehicle.isValidPlate(plate) {
                throw ValidationError(book(.adminPlateInvalid))
            }
            for (flag, value) in [("--colour", colour), ("--make", make), ("--model", model)] {
                if let value, value.trimmingCharacters(in: .whitespaces).isEmpty || value.count > 40 {
                    throw ValidationError(book(.adminPartLength, ["flag": .text(flag)]))
                }
            }
            // The server's edge rule for text people read: a name or vehicle reaches the
            // passenger's terminal, voice and desktop and the dispatcher's page.
            for (flag, value) in [("--name", name), ("--vehicle", vehicle), ("--colour", colour), ("--make", make), ("--model", model)] {
                guard let value else { continue }
                do { _ = try FreeText.clean(value, field: flag, maxLength: 200, multiline: false) } catch {
                    throw ValidationError(book(.adminNoControlCharacters, ["flag": .text(flag)]))
                }
            }
        }

        func run() async throws {
            guard let role = Role(rawValue: role) else { return }
            try await options.withStore(creating: true) { store in
                let new = vehicleDetails.map { NewAccount(role: role, displayName: name, vehicleDetails: $0) }
                    ?? NewAccount(role: role, displayName: name, vehicle: vehicle)
                let account = try await store.createAccount(new)
                let secret = APITokenSecret()
                let token = try await store.addToken(accountID: account.id, secretHash: secret.hash, expiresAt: expiry.expiresAt)
                audit("account.create", ["account_id": account.id, "role": role.rawValue, "token_id": token.id])
                printToStandardError(PersonalBook.current(.adminCreatedAccount, ["role": .text(Admin.roleWord(role, in: PersonalBook.current)), "name": .text(name)]))
                print(secret.text)
            }
        }
    }

    struct CreateToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue another token for an account (stdout: only the token line).")

        @Argument(help: ArgumentHelp("The account's name (any case), or the start of its id.", valueName: "ACCOUNT"))
        var account: String
        @OptionGroup var expiry: TokenExpiryOption
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                let account = try Admin.accounts(try await store.accounts()).pick(self.account).id
                let secret = APITokenSecret()
                let token = try await store.addToken(accountID: account, secretHash: secret.hash, expiresAt: expiry.expiresAt)
                audit("token.issue", ["account_id": account, "token_id": token.id])
                print(secret.text)
            }
        }
    }

    struct ListAccounts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List accounts as tab-separated id, role, name, vehicle.")

        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                print(["id", "role", "name", "vehicle"].joined(separator: "\t"))
                for account in try await store.accounts() {
                    // Names from before the edge rule may hold control characters: the terminal sink.
                    let fields = [account.displayName, account.writtenVehicle ?? ""].map { SinkText.terminal($0).replacingOccurrences(of: "\t", with: " ") }
                    print(([account.id, account.role.rawValue] + fields).joined(separator: "\t"))
                }
            }
        }
    }

    struct RevokeTokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke every token of an account (prints how many).")

        @Argument(help: ArgumentHelp("The account's name (any case), or the start of its id.", valueName: "ACCOUNT"))
        var account: String
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                let account = try Admin.accounts(try await store.accounts()).pick(self.account).id
                let revoked = try await store.revokeTokens(accountID: account)
                audit("tokens.revoke", ["account_id": account, "revoked": "\(revoked)"])
                print(revoked)
            }
        }
    }

    /// An operator override for when touch confirmation cannot work (a broken radio): rides are
    /// normally confirmed by touch proofs (POST /v1/rides/{id}/touch-proofs). It writes straight
    /// to the database; a running server picks the event up within its poll interval (2 s) and
    /// streams it. The event's actor is "operator", so the history shows who confirmed.
    struct ConfirmRide: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Operator override: mark an arrived ride confirmed without touch proofs.")

        @Argument(help: "Ride id.")
        var ride: String
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            try await options.withStore { store in
                var rideID = ride
                if let code = ShortCode.normalized(ride) {
                    guard let held = try await store.rideRequest(code: code)?.rideID else {
                        throw ValidationError(PersonalBook.current(.adminRideNotFound, ["code": .text(code)]))
                    }
                    rideID = held
                }
                let confirmed = try await store.transition(rideID: rideID, to: .confirmed, by: "operator",
                                                           detail: "confirmed by an operator (ridebeacon admin confirm-ride)", idempotency: nil)
                audit("ride.confirm", ["ride_id": rideID])
                print(confirmed.state.rawValue)
            }
        }
    }

    /// What `serve` does hourly, on demand: for a deployment that runs the server without the
    /// periodic task, or to purge at once after lowering the retention.
    struct PurgeLocations: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase pickup, drop-off and notes of rides that ended more than --older-than-days ago (prints how many).")

        @Option(help: "Retention in days (1 to 3650).")
        var olderThanDays = 30
        @OptionGroup var options: DatabaseOptions

        func validate() throws {
            guard LocationRetention.days.contains(olderThanDays) else {
                throw ValidationError(PersonalBook.current(.adminRetentionRange, ["days": .text("\(olderThanDays)")]))
            }
        }

        func run() async throws {
            try await options.withStore { store in
                let purged = try await store.purgeLocations(finishedBefore: LocationRetention(days: olderThanDays).cutoff(now: Date()))
                audit("locations.purge", ["older_than_days": "\(olderThanDays)", "requests": "\(purged)"])
                print(purged)
            }
        }
    }
}
