import Foundation
import RideWire
import Testing

/// The short texts people read, hear and type instead of ids and tokens.
@Suite("Short ride codes, sign-in codes, ETA details")
struct CodeTextTests {
    @Test func rideCodesUseNoLookAlikesAndNormalizeWhatPeopleType() {
        for confusable in "0O1IL2Z5S8B" { #expect(!ShortCode.alphabet.contains(confusable), "\(confusable)") }
        let code = ShortCode.random()
        #expect(code.count == 4 && code.allSatisfy(ShortCode.alphabet.contains))
        #expect(ShortCode.normalized(" k x-7r ") == "KX7R")
        #expect(ShortCode.normalized("KX7") == nil && ShortCode.normalized("KX7RR") == nil && ShortCode.normalized("KX0R") == nil)
        #expect(ShortCode.normalized("3f2c4a1e-0000-4000-8000-000000000000") == nil, "a UUID is never taken for a code")
        #expect(ShortCode.spoken("KX7R") == "K X 7 R")
    }

    @Test func signInCodesAreEightDigitsInTwoGroups() {
        let code = SignInCodeText.random()
        #expect(code.count == 8 && code.allSatisfy(\.isNumber))
        #expect(SignInCodeText.grouped("48210937") == "4821 0937")
        #expect(SignInCodeText.normalized("4821-0937") == "48210937" && SignInCodeText.normalized(" 4821 0937 ") == "48210937")
        #expect(SignInCodeText.normalized("4821 093") == nil && SignInCodeText.normalized("4821 093x") == nil)
        #expect(SignInCodeText.normalized("４８２１０９３７") == nil, "full-width digits are not ASCII digits")
    }

    @Test func etaDetailsRoundTrip() {
        #expect(ETAText.detail(minutes: 1) == "ETA 1 minute" && ETAText.detail(minutes: 7) == "ETA 7 minutes")
        #expect(ETAText.minutes(fromDetail: ETAText.detail(minutes: 12)) == 12)
        #expect(ETAText.minutes(fromDetail: "passenger phoned") == nil)
    }
}
