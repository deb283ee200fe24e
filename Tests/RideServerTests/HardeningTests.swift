import Foundation
import HTTPTypes
import HummingbirdTesting
import RideServer
import Testing

/// Smaller holes from the security review (issue 13, items 3 and 5).
@Suite("Security hardening", .timeLimit(.minutes(2)))
struct HardeningTests {
    /// The router matches a trailing slash too; the shipped nginx hid only the exact path.
    @Test
    func operationsRoutesAnswerOnlyTheirExactPath() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            #expect(try await client.call(.get, "/metrics", as: nil).status == .ok)
            #expect(try await client.call(.get, "/health", as: nil).status == .ok)
            for path in ["/metrics/", "/health/"] {
                let response = try await client.call(.get, path, as: nil)
                #expect(response.status == .notFound, "\(path)")
                #expect(response.errorCode == "not_found" && !response.text.contains("ridebeacon_"))
            }
        }
    }

    /// Login CSRF: another site's page must not sign the browser in (with the attacker's token).
    @Test
    func signInFromAnotherOriginIsRefusedAndSetsNoCookie() async throws {
        let world = try await World.make(.sqlite)
        try await world.app().test(.live) { client in
            for headers in [["Origin": "https://evil.example"], ["Referer": "https://evil.example/page"], ["Origin": "null"],
                            ["Origin": "https://localhost.evil.example"]] {
                let login = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)", headers: headers)
                #expect(login.status == .forbidden, "\(headers)")
                #expect(login.headers[.setCookie] == nil)
                #expect(login.text.contains("another site"))
            }
            // The same host (the test client's Host is localhost) signs in, with or without a port.
            for origin in ["http://localhost", "https://localhost:8443"] {
                let login = try await client.form(.post, "/dispatch/login", "token=\(world.dispatcher.token)", headers: ["Origin": origin])
                #expect(login.status == .seeOther && login.headers[.setCookie] != nil, "\(origin)")
            }
        }
    }
}
