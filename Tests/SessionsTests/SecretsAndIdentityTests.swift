import Foundation
import Testing

@testable import Sessions

/// Partition names, and secrets kept out of every description.
struct SecretsAndIdentityTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func sha256MatchesKnownDigests(message: String, hex: String) {
        let digest = SHA256.hash(Array(message.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(digest == hex)
    }

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
