import Foundation
import Testing

@testable import Sessions

/// Partition names, and secrets kept out of every description.
struct SecretsAndIdentityTests {
    @Test func partitionNames() {
        #expect(SessionIdentity.guest.partitionName == "guest")
        #expect(SessionIdentity.user(id: "alice@example.com").partitionName == "user-ff8d9819fc0e12bf0d24892e45987e24")
        #expect(SessionIdentity.user(id: "bob").partitionName != SessionIdentity.user(id: "Bob").partitionName)
        #expect(!SessionIdentity.user(id: "alice@example.com").partitionName.contains("alice"))
    }

    @Test func tokenDescriptionsNeverShowTheValue() {
        let token = AuthorizationToken(value: "eyJ.secret.sig", expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        for text in [
            token.description, String(reflecting: token), "\(token)", "\([token])", "\(Optional(token) as Any)",
        ] {
            #expect(!text.contains("eyJ.secret.sig"))
        }
        #expect(token.description.contains("Bearer <redacted>"))
        #expect(token.authorizationHeaderValue == "Bearer eyJ.secret.sig")
    }

    @Test func providerDescriptionsNeverShowTheToken() {
        let provider = StaticTokenProvider(accessToken: "static-secret-value")
        #expect(!String(describing: provider).contains("static-secret-value"))
        #expect(!String(reflecting: provider).contains("static-secret-value"))
    }

    @Test func tokenExpiryUsesTheLeeway() {
        let now = Date(timeIntervalSince1970: 1_000)
        let token = AuthorizationToken(value: "x", expiresAt: now.addingTimeInterval(20))
        #expect(!token.isExpired(at: now))
        #expect(token.isExpired(at: now, leeway: 30))
        #expect(!AuthorizationToken(value: "x").isExpired(at: .distantFuture))
    }
}
