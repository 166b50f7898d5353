import Foundation
import Sessions
import Testing

/// The names a signed-in user's partition is derived from: the JWT subject, the credential source's
/// digest (never a token), and the keys built from them.
@Suite struct IdentityKeyTests {
    static let instance = URL(string: "https://instance.example.com/")!

    @Test(arguments: [
        ("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.", "alice"),
        ("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.c2ln\n", "alice"),
        // base64url characters (- and _) in the payload: {"sub":"a>?b"}
        ("e30.eyJzdWIiOiJhPj9iIn0.", "a>?b"),
    ])
    func theSubjectIsReadFromACompactJWT(jwt: String, subject: String) {
        #expect(JWTClaims.subject(of: jwt) == subject)
    }

    @Test(arguments: [
        "", "not-a-jwt", "a.b", "e30.e30.", "e30.eyJzdWIiOiIifQ.", "e30.eyJzdWIiOjQyfQ.", "e30.W10.", "e30.eyJzdWIi.",
        "e30.eyJzdWIiOiJhbGljZSJ9=.",
    ])
    func aJWTWithoutAStringSubjectHasNone(jwt: String) {
        #expect(JWTClaims.subject(of: jwt) == nil)
    }

    @Test func everySourceKindAndTextGivesItsOwnDigest() {
        let sources: [CredentialSource] = [
            .tokenCommand("printf tok"), .tokenCommand("printf tok2"), .tokenFile(path: "printf tok"),
            .jwtCommand("printf tok", clientID: nil), .jwtCommand("printf tok", clientID: "app"),
        ]
        let digests = sources.map { $0.digest(instance: Self.instance) }
        #expect(Set(digests).count == sources.count)
        #expect(digests.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        // The same source for another instance is another name; the same instance spelled otherwise is not.
        let other = URL(string: "https://other.example.com/")!
        #expect(sources[0].digest(instance: other) != digests[0])
        #expect(sources[0].digest(instance: URL(string: "HTTPS://Instance.Example.com/path")!) == digests[0])
    }

    @Test func keysOfProvenUsersAndOfSourcesNeverMeet() {
        let source = CredentialSource.tokenCommand("printf tok-alice")
        let keys = [
            IdentityKey.instanceUser("alice", instance: Self.instance),
            IdentityKey.credential(source, instance: Self.instance),
            IdentityKey.credential(source, instance: Self.instance, name: "alice"),
            IdentityKey.credential(.tokenCommand("printf tok-bob"), instance: Self.instance, name: "alice"),
        ]
        #expect(Set(keys).count == keys.count)
        #expect(Set(keys.map { SessionIdentity.user(id: $0).partitionName }).count == keys.count)
        // A user id configured before keys were derived (such as the old default) is none of them.
        #expect(!keys.contains("default") && !keys.contains("alice"))
    }
}
