import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
import WebCacheTestSupport

/// Two people, one store: the real `webcache` executable signed in as Alice and as Bob with token
/// commands of their own, online and offline. A private entry is read only with the credentials of
/// the identity that fetched it (see docs/identity.md).
@Suite(.timeLimit(.minutes(5)))
final class IdentityPartitionCommandTests: Sendable {
    let folder: TemporaryFolder
    let instance = TestInstance()
    let server: OriginServer
    let webcache: WebcacheRunner

    static let alice = ["--token-command", "printf tok-alice"]
    static let bob = ["--token-command", "printf tok-bob"]

    init() throws {
        folder = try TemporaryFolder()
        let instance = instance
        server = OriginServer { instance.handle($0) }
        try server.start()
        webcache = WebcacheRunner(home: folder)
        instance.state.withLock { state in
            state.tokens["tok-alice"] = "alice"
            state.tokens["tok-bob"] = "bob"
            // Fresh for ten minutes: a second reader in the same partition would be served from the store.
            state.pageCacheControl = "private, max-age=600"
        }
    }

    deinit {
        server.stop()
        folder.remove()
    }

    /// `webcache get path` against this test's store and instance, with `options`.
    private func get(_ path: String, _ options: [String]) async throws -> WebcacheRunner.Result {
        try await webcache.run(
            ["get", path, "--store", folder.path("store.sqlite"), "--instance", server.baseURL.absoluteString] + options)
    }

    /// How often the instance was asked for `path`.
    private func requests(for path: String) -> Int {
        server.requests.count { $0.path == path }
    }

    // MARK: - Token commands alone

    @Test func bobsTokenCommandDoesNotReadAlicesPrivatePage() async throws {
        // Given Alice fetched her private page
        let alice = try await get("private/a.txt", Self.alice)
        try #require(alice.exitCode == 0, "\(alice.stderr)")
        #expect(alice.stdout == "page /private/a.txt for alice")

        // When Bob asks the store for it with his own token command
        let bobOffline = try await get("private/a.txt", Self.bob + ["--policy", "cache-only"])

        // Then he is not handed Alice's page, offline or online
        #expect(bobOffline.exitCode == 1)
        #expect(!bobOffline.stdout.contains("alice"), "\(bobOffline.stdout)")
        let bobOnline = try await get("private/a.txt", Self.bob)
        #expect(bobOnline.exitCode == 0, "\(bobOnline.stderr)")
        #expect(bobOnline.stdout == "page /private/a.txt for bob")
        #expect(requests(for: "/private/a.txt") == 2)
        // And Alice still reads hers offline, with the same token command
        let aliceOffline = try await get("private/a.txt", Self.alice + ["--policy", "cache-only"])
        #expect(aliceOffline.exitCode == 0, "\(aliceOffline.stderr)")
        #expect(aliceOffline.stdout == "page /private/a.txt for alice")
    }

    @Test func userNamesAPartitionOnlyTogetherWithItsOwnCredentials() async throws {
        // Given Alice fetched her page, with and without naming herself
        for options in [Self.alice, Self.alice + ["--user", "alice"]] {
            let result = try await get("private/a.txt", options)
            try #require(result.exitCode == 0, "\(result.stderr)")
        }

        // When Bob names Alice with his own credentials, offline and online
        let offline = try await get("private/a.txt", Self.bob + ["--user", "alice", "--policy", "cache-only"])
        let online = try await get("private/a.txt", Self.bob + ["--user", "alice"])

        // Then neither reaches Alice's entries
        #expect(offline.exitCode == 1)
        #expect(!offline.stdout.contains("alice"), "\(offline.stdout)")
        #expect(online.stdout == "page /private/a.txt for bob")
        // And --user without credentials is a usage error that says why
        let guest = try await get("private/a.txt", ["--user", "alice", "--policy", "cache-only"])
        #expect(guest.exitCode == 64)
        #expect(guest.stderr.contains("--user needs --token-command"), "\(guest.stderr)")
    }

    // MARK: - Who the instance says the user is

    @Test func whoamiNamesThePartitionAfterTheInstancesUser() async throws {
        // Given Alice fetched her page with a token command, and the instance named her
        let whoami = ["--whoami", "api/me"]
        let first = try await get("private/a.txt", Self.alice + whoami)
        try #require(first.exitCode == 0, "\(first.stderr)")

        // When she reads it with another credential source of hers (a token file), online
        let tokenFile = try folder.write(Data("tok-alice\n".utf8), to: "alice-token")
        let second = try await get("private/a.txt", ["--token-file", tokenFile] + whoami)

        // Then it is the same partition: a hit, the instance asked for the page once
        #expect(second.exitCode == 0, "\(second.stderr)")
        #expect(second.stdout == "page /private/a.txt for alice")
        #expect(second.stderr.contains("hit"), "\(second.stderr)")
        #expect(requests(for: "/private/a.txt") == 1)
        #expect(requests(for: "/api/me") == 2)

        // And --user naming someone else is refused before anything is read
        let mismatch = try await get("private/a.txt", Self.alice + whoami + ["--user", "bob"])
        #expect(mismatch.exitCode == 1)
        #expect(mismatch.stderr.contains("--user 'bob' does not match"), "\(mismatch.stderr)")
    }

    /// The session opened to ask who the user is is the one the command carries on; with
    /// --keep-session, the next run asks with the session kept.
    @Test func aWhoamiRunOpensOneSessionOnTheInstance() async throws {
        // When Alice fetches a page with --whoami
        let whoami = ["--whoami", "api/me", "--keep-session"]
        let first = try await get("private/a.txt", Self.alice + whoami)
        try #require(first.exitCode == 0, "\(first.stderr)")

        // Then the instance opened one session: the page came with its cookie, no bearer token
        #expect(instance.state.withLock { $0.sessions.count } == 1)
        let page = try #require(server.requests.first { $0.path == "/private/a.txt" })
        #expect(page.headers["Authorization"] == nil)
        #expect(page.headers["Cookie"] != nil)

        // And a second run asks with the kept session: still one session
        let second = try await get("private/b.txt", Self.alice + whoami)
        #expect(second.exitCode == 0, "\(second.stderr)")
        #expect(second.stdout == "page /private/b.txt for alice")
        #expect(instance.state.withLock { $0.sessions.count } == 1)
        #expect(server.requests.last { $0.path == "/api/me" }?.headers["Authorization"] == nil)
    }

    /// An instance installed under a path given without its trailing `/`: `--whoami` and
    /// `--token-endpoint` resolve against its root as a page does, not beside it.
    @Test func whoamiAndTheTokenEndpointResolveAgainstAnInstanceUnderAPath() async throws {
        let portal = OriginServer { request in
            switch request.path {
            case "/portal/me.json":
                OriginResponse(
                    headers: ["Content-Type": "application/json"], body: .bytes(Data(#"{"sub":"carol"}"#.utf8)))
            case "/portal/page.txt":
                OriginResponse(headers: ["Content-Type": "text/plain"], body: .bytes(Data("portal page".utf8)))
            default:
                OriginResponse(status: 404)
            }
        }
        try portal.start()
        defer { portal.stop() }
        let base = portal.url("portal").absoluteString
        let result = try await webcache.run([
            "get", "page.txt", "--store", folder.path("portal.sqlite"), "--instance", base,
            "--token-command", "printf tok-carol", "--whoami", "me.json",
        ])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "portal page")
        #expect(portal.requests.map(\.path) == ["/portal/me.json", "/portal/page.txt"])
        // The JWT flow's endpoint, asked for only when it signs in: `--token-endpoint` says where.
        let endpoint = try await webcache.run([
            "get", "page.txt", "--store", folder.path("portal.sqlite"), "--instance", base,
            "--jwt-command", "printf assertion", "--token-endpoint", "token.do", "--policy", "reload",
        ])
        #expect(portal.requests.last?.path == "/portal/token.do", "\(endpoint.stderr)")
    }

    @Test func credentialsTheInstanceRefusesNameNobodyAndStoreNothing() async throws {
        let result = try await get("private/a.txt", ["--token-command", "printf tok-unknown", "--whoami", "api/me"])

        #expect(result.exitCode == 1)
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
        #expect(result.stderr.contains("api/me"), "\(result.stderr)")
        #expect(!result.everything.contains("tok-unknown"))
        #expect(requests(for: "/private/a.txt") == 0)
    }

    @Test func offlineAWhoamiPartitionIsReadWithTheSameCredentialSourceOnly() async throws {
        // Given Alice fetched her page online, named by the instance
        let whoami = ["--whoami", "api/me"]
        try #require(try await get("private/a.txt", Self.alice + whoami).exitCode == 0)
        let asked = server.requestCount

        // When Alice reads it offline, with the same token command
        let alice = try await get("private/a.txt", Self.alice + whoami + ["--policy", "cache-only"])
        // And Bob, who never signed in online
        let bob = try await get("private/a.txt", Self.bob + whoami + ["--policy", "cache-only"])
        // And a token command that prints Alice's token but is not the one the store knows
        let other = try await get("private/a.txt", ["--token-command", "echo tok-alice"] + whoami + ["--policy", "cache-only"])

        // Then only the first is served, and the instance was not asked anything
        #expect(alice.exitCode == 0, "\(alice.stderr)")
        #expect(alice.stdout == "page /private/a.txt for alice")
        for refused in [bob, other] {
            #expect(refused.exitCode == 1)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("No user is known for these credentials"), "\(refused.stderr)")
        }
        #expect(server.requestCount == asked)
    }

    /// A sign-out with --whoami finds the partition from what the store recorded for the credentials:
    /// it needs neither the instance nor a token (it asked the instance, and failed when it was down).
    @Test func aWhoamiUserLogsOutWithTheInstanceDown() async throws {
        let whoami = ["--whoami", "api/me"]
        try #require(try await get("private/a.txt", Self.alice + whoami).exitCode == 0)
        server.stop()

        let logout = try await webcache.run(
            ["logout", "--store", folder.path("store.sqlite"), "--instance", server.baseURL.absoluteString]
                + Self.alice + whoami)

        #expect(logout.exitCode == 0, "\(logout.stderr)")
        #expect(logout.stdout.hasPrefix("Logged out: removed 1 entry"), "\(logout.stdout)")
        let after = try await get("private/a.txt", Self.alice + whoami + ["--policy", "cache-only"])
        #expect(after.exitCode == 1)
        #expect(after.stdout.isEmpty)
    }

    @Test func theJWTSubjectNamesThePartition() async throws {
        // Given Alice fetched her page with a JWT command whose JWT names her
        let jwt = ["--jwt-command", "printf '\(TestInstance.jwt(subject: "alice"))'", "--token-endpoint", "oauth_token.do"]
        let first = try await get("private/a.txt", jwt)
        try #require(first.exitCode == 0, "\(first.stderr)")
        #expect(first.stdout == "page /private/a.txt for alice")

        // When another JWT command that also signs for Alice reads it offline, and one for Bob does
        let again = ["--jwt-command", "printf %s '\(TestInstance.jwt(subject: "alice"))'", "--token-endpoint", "oauth_token.do"]
        let alice = try await get("private/a.txt", again + ["--policy", "cache-only"])
        let bobJWT = ["--jwt-command", "printf '\(TestInstance.jwt(subject: "bob"))'", "--token-endpoint", "oauth_token.do"]
        let bob = try await get("private/a.txt", bobJWT + ["--policy", "cache-only"])

        // Then Alice's is served and Bob's is not
        #expect(alice.exitCode == 0, "\(alice.stderr)")
        #expect(alice.stdout == "page /private/a.txt for alice")
        #expect(bob.exitCode == 1)
        #expect(!bob.stdout.contains("alice"))
    }

    // MARK: - The gateway offline

    @Test func anOfflineGatewayServesThePartitionOfItsOwnCredentialsOnly() async throws {
        try #require(try await get("private/a.txt", Self.alice).exitCode == 0)

        for (credentials, expected) in [(Self.bob, 504), (Self.alice, 200)] {
            // Given a gateway started offline with these credentials
            let stdout = OutputFile(path: folder.path("serve-\(expected).out"))
            let process = try webcache.start(
                ["serve", "--offline", "--port", "0", "--store", folder.path("store.sqlite"),
                 "--instance", server.baseURL.absoluteString, "--upstream", server.baseURL.absoluteString]
                    + credentials,
                output: stdout, error: OutputFile(path: folder.path("serve-\(expected).err")))
            let line = try #require(try await stdout.lines(1).first)
            let gateway = try #require(URL(string: line))

            // When Alice's page is asked for
            var settings = CurlTransport.Configuration()
            settings.proxy = ""
            let response = try await CurlTransport(configuration: settings).send(
                HTTPRequest(url: gateway.appending(path: "private/a.txt")))
            let body = try await response.body.collect()
            process.send(SIGTERM)
            _ = await process.finish()

            // Then only Alice's gateway has it
            #expect(response.head.status == expected)
            #expect(String(decoding: body, as: UTF8.self).contains("for alice") == (expected == 200))
        }
    }
}
