import APIBodies
import Foundation
import HummingbirdTesting
import PropertyBased
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// Issue 36, finding 9: only control characters were refused in people's text, so bidi
/// overrides and isolates, U+2028, zero-width and tag characters were stored and shown (a
/// dispatcher read a reordered line). One rule now, at the edge, for every field people type.
@Suite("People's text: one rule at the edge")
struct PeopleTextTests {
    /// What people write in the languages the service speaks and the scripts its riders use:
    /// accepted as it is, ZWNJ and ZWJ included.
    static let written = [
        "Calle Mayor 3, 2º izq.", "Gare de l'Est, côté quai", "محطة القطار", "می‌خواهم", // Persian with ZWNJ
        "क्‍ष", "👩‍🦯 at the door", "🏳️‍🌈", "Straße 5\u{301}", "北京站",
    ]

    /// Each hides what a line says or is no text at all; every one was stored before.
    static let hidden: [(String, String)] = [
        ("Main St \u{202E}1 tS niaM", "U+202E"), ("\u{2066}Station\u{2069}", "U+2066"), ("Main\u{2028}St", "U+2028"),
        ("Main\u{2029}St", "U+2029"), ("Ma\u{200B}in", "U+200B"), ("Main\u{E0041}\u{E0042}", "U+E0041"), ("\u{E000}Main", "U+E000"),
        ("Main\u{200F}", "U+200F"), ("Ma\u{00AD}in", "U+00AD"), ("\u{FEFF}Main", "U+FEFF"), ("Main\u{F0000}", "U+F0000"),
        ("Main\u{1B}[2J", "U+001B"),
    ]

    @Test func languagesTextIsAcceptedAndHiddenCharactersAreRefusedNamingThem() throws {
        for text in Self.written {
            #expect(throws: Never.self, "\(text.unicodeScalars.map { String($0.value, radix: 16) })") {
                try FieldRules.text(text, field: "pickup", maxLength: 500)
            }
        }
        for (text, named) in Self.hidden {
            #expect(throws: BodyError.self, "\(named)") { try FieldRules.text(text, field: "pickup", maxLength: 500) }
            do {
                try FieldRules.text(text, field: "pickup", maxLength: 500)
            } catch {
                #expect("\(error)".contains(named), "the message names \(named): \(error)")
            }
        }
        // Tab and line breaks only where several lines are allowed.
        #expect(throws: Never.self) { try FieldRules.text("Ramp\n\tat the back", field: "notes", maxLength: 500, multiline: true) }
        #expect(throws: BodyError.self) { try FieldRules.text("Ramp\nat the back", field: "pickup", maxLength: 500) }
    }

    /// Any one character among letters: refused exactly when its general category is Cc, Cf
    /// (but ZWNJ, ZWJ), Co, Cs, Zl or Zp. The speech cleanup blanks the same characters.
    @Test func theRuleIsTheUnicodeCategoriesForEveryCharacter() async {
        let scalars = Gen.uint32(in: 0...0x10FFFF).compactMap { Unicode.Scalar($0) }
        await propertyCheck(count: 3000, input: scalars) { scalar in
            let category = scalar.properties.generalCategory
            let hidden: Bool = switch category {
            case .control, .privateUse, .surrogate, .lineSeparator, .paragraphSeparator: true
            case .format: scalar.value != 0x200C && scalar.value != 0x200D
            default: false
            }
            let refused = (try? FieldRules.text("A\(Character(scalar))B", field: "f", maxLength: 10)) == nil
            #expect(refused == hidden, "U+\(String(scalar.value, radix: 16)) \(category)")
            #expect(FreeText.isRefused(scalar) == hidden)
        }
    }

    /// Over HTTP, on both stores: a request, a message to the driver and a saved place with a
    /// bidi override are 400 naming the field, and nothing is stored.
    @Test(arguments: StoreKind.available)
    func bodiesWithHiddenCharactersAre400AndStoreNothing(kind: StoreKind) async throws {
        let world = try await World.make(kind)
        let ride = try await world.acceptedRide()
        try await world.app().test(.router) { client in
            let before = try await world.store.rideRequests(passengerID: world.passenger.id).count
            let request = try await client.call(.post, "/v1/ride-requests", as: world.passenger,
                                                json: #"{"pickup":"Main St \u202e1 tS","dropoff":"Station"}"#)
            #expect(request.status == .badRequest && request.errorCode == "invalid_field" && request.errorField == "pickup", "\(request.text)")
            #expect(request.errorMessage.contains("U+202E"))
            #expect(try await world.store.rideRequests(passengerID: world.passenger.id).count == before)

            let events = try await world.store.events(rideID: ride.id, after: 0).count
            let message = try await client.call(.post, "/v1/rides/\(ride.id)/messages", as: world.passenger,
                                                json: #"{"text":"I am at the \u2066main\u2069 entrance"}"#)
            #expect(message.status == .badRequest && message.errorField == "text", "\(message.text)")
            let separated = try await client.call(.post, "/v1/rides/\(ride.id)/messages", as: world.passenger,
                                                  json: #"{"text":"one\u2028two"}"#)
            #expect(separated.status == .badRequest && separated.errorField == "text", "\(separated.text)")
            #expect(try await world.store.events(rideID: ride.id, after: 0).count == events)

            let place = try await client.call(.post, "/v1/places", as: world.passenger, json: #"{"name":"Home","address":"Main\u200b St 1"}"#)
            #expect(place.status == .badRequest, "\(place.text)")
            #expect(try await world.store.savedPlaces(accountID: world.passenger.id).isEmpty)

            let fine = try await client.call(.post, "/v1/rides/\(ride.id)/messages", as: world.passenger, json: #"{"text":"می‌خواهم 👩‍🦯"}"#)
            #expect(fine.status == .created, "\(fine.text)")
        }
        await world.close()
    }
}
