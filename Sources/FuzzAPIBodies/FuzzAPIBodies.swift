import APIBodies
import Foundation
import FuzzEntry

// libFuzzer over the API's request bodies: the first byte picks the body type, the rest is the
// HTTP body. Decoding must end in a value or a `BodyError` (what the server turns into a 400);
// a trap, or any other error (which the server would answer with a 500), is the bug.
func decodeBody(_ bytes: ArraySlice<UInt8>) {
    guard let selector = bytes.first else { return }
    let body = Data(bytes.dropFirst())
    do {
        switch selector % 5 {
        case 0: try check(StrictJSON.decodeBody(NewRideRequestBody.self, from: body))
        case 1: try check(StrictJSON.decodeBody(NewAccountBody.self, from: body))
        case 2: try check(StrictJSON.decodeBody(IssueTokenBody.self, from: body))
        case 3: try check(StrictJSON.decodeBody(CancelBody.self, from: body))
        default: _ = try StrictJSON.decodeBody(EmptyBody.self, from: body)
        }
    } catch is BodyError {
        return
    } catch {
        fatalError("\(error) escaped as something other than a BodyError")
    }
    // Accepted: then no object in it repeats a key or has more than the cap of keys (those are
    // refused with invalid_json).
    precondition(DuplicateKeys.scan(body) == nil, "a body with a duplicate key or too many keys was accepted")
}

/// What a decoded body promises the server: its checks hold.
func check(_ body: NewRideRequestBody) {
    precondition(body.passengerName.map { !$0.isEmpty && $0.unicodeScalars.count <= BodyLimits.maxNameLength } ?? true)
    precondition(body.pickup.unicodeScalars.count <= BodyLimits.maxTextLength && !body.pickup.unicodeScalars.contains("\0"))
}

func check(_ body: NewAccountBody) {
    precondition(NewAccountBody.roles.contains(body.role))
    precondition(body.vehicle == nil || body.role == "driver")
}

func check(_ body: IssueTokenBody) {
    precondition(body.expiresInDays.map(IssueTokenBody.days.contains) ?? true)
}

func check(_ body: CancelBody) {
    precondition(body.reason.map { $0.unicodeScalars.count <= BodyLimits.maxTextLength } ?? true)
}

#if FUZZING
// The driver hookup is FuzzEntry's; only the two C names are this executable's own.
@_cdecl("FuzzAPIBodies_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { FuzzEntry.runDriver(argc, argv, fuzzOneInput) }
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzEntry.run(data, size, decodeBody) }
#else
// Without libFuzzer this replays the files given (the corpus, saved crashes), so crashes found earlier stay fixed.
@main enum ReplayCorpus { static func main() { FuzzEntry.replayArguments("FuzzAPIBodies", decodeBody) } }
#endif
