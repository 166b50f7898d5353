import ChildProcess
import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Synchronization
import Testing
import WebCacheTestSupport

/// The real `webcache` executable signed in to an instance on 127.0.0.1 through its token options:
/// preloading a user's pages, a session the instance stops accepting, a token it refuses, the gateway
/// serving as the user.
@Suite(.timeLimit(.minutes(5)))
final class SignedInCommandTests: Sendable {
    let folder: TemporaryFolder
    let instance = TestInstance()
    let server: OriginServer
    let webcache: WebcacheRunner
    let urlFile: String
    /// Holds the answer for `/nav/held.html` back while it is closed.
    let gate = Gate()
    /// Signalled when a request for `/nav/held.html` arrives.
    let heldArrived = DispatchSemaphore(value: 0)

    init() throws {
        folder = try TemporaryFolder()
        let instance = instance
        let gate = gate
        let heldArrived = heldArrived
        server = OriginServer { request in
            let response = instance.handle(request)
            guard request.path == "/nav/held.html" else { return response }
            heldArrived.signal()
            return gate.passing(response)
        }
        try server.start()
        webcache = WebcacheRunner(home: folder)
        urlFile = try folder.write(Data("nav/a.html\nnav/b.html\n".utf8), to: "urls.txt")
        instance.state.withLock { $0.tokens["tok-alice"] = "alice" }
    }

    deinit {
        server.stop()
    }

    /// alice's partition: the instance names her (`--whoami`).
    private var alicePartition: String {
        SessionIdentity.user(id: IdentityKey.instanceUser("alice", instance: server.baseURL)).partitionName
    }

    /// The options of this test's store and instance, signed in as alice with `identity` options; the
    /// instance names the user (`--whoami`) unless `whoami` is false.
    private func signedIn(_ identity: [String], whoami: Bool = true) -> [String] {
        ["--store", folder.path("store.sqlite"), "--instance", server.baseURL.absoluteString]
            + (whoami ? ["--whoami", "api/me"] : []) + identity
    }

    /// Runs `webcache` against this test's store, signed in as alice with `identity` options.
    private func run(_ arguments: [String], identity: [String], whoami: Bool = true) async throws
        -> WebcacheRunner.Result
    {
        try await webcache.run(arguments + signedIn(identity, whoami: whoami))
    }

    private func preload(identity: [String], whoami: Bool = true) async throws
        -> (WebcacheRunner.Result, [[String: Any]])
    {
        let result = try await run(["preload", urlFile, "--json"], identity: identity, whoami: whoami)
        let lines = try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        return (result, lines)
    }

    /// alice's partition in `inspect --json`: its entry count, or `nil` when it holds none.
    private func aliceEntries() async throws -> Int? {
        let result = try await webcache.run(["inspect", "--json", "--store", folder.path("store.sqlite")])
        try #require(result.exitCode == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let partitions = try #require(object["partitions"] as? [[String: Any]])
        let name = alicePartition
        return partitions.first { $0["name"] as? String == name }?["entries"] as? Int
    }

    /// The requests for alice's pages, as `path credential`.
    private var pageRequests: [String] {
        instanceRequests.filter { $0.hasPrefix("/nav/") }
    }

    /// The requests for alice's pages and for who she is (`/api/me`), as `path credential`.
    private var instanceRequests: [String] {
        server.requests.filter { $0.path.hasPrefix("/nav/") || $0.path == "/api/me" }.map { request in
            let credential = request.headers["Authorization"] ?? (request.headers["Cookie"] == nil ? "-" : "cookie")
            return "\(request.path) \(credential)"
        }
    }

    @Test func aTokenCommandSignsInOnceAndThePagesLandInTheUsersPartition() async throws {
        let (result, events) = try await preload(identity: ["--token-command", "printf tok-alice"])

        #expect(result.exitCode == 0, "\(result.stderr)")
        let summary = try #require(events.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["completed"] as? Int == 4)
        #expect(summary["failed"] as? Int == 0)
        #expect(try await aliceEntries() == 4)
        // The question who she is starts the session with the bearer; the pages carry on with its
        // cookie, as does what they need: one session.
        #expect(instanceRequests.first == "/api/me Bearer tok-alice", "\(instanceRequests)")
        let requests = pageRequests
        #expect(requests.allSatisfy { $0.hasSuffix(" cookie") }, "\(requests)")
        #expect(instance.state.withLock { $0.sessions.count } == 1)
        #expect(requests.filter { $0.hasPrefix("/nav/logo.png") || $0.hasPrefix("/nav/style.css") }.sorted()
            == ["/nav/logo.png cookie", "/nav/style.css cookie"])
        #expect(!result.everything.contains("tok-alice"))
        // Without --keep-session, neither the token nor the session's cookies reach the disk.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!files.contains { $0.contains("cookies") }, "\(files)")
        let sessionIDs = instance.state.withLock { Array($0.sessions.keys) }
        #expect(!sessionIDs.isEmpty)
        let store = try Data(contentsOf: URL(fileURLWithPath: folder.path("store.sqlite")))
        for secret in ["tok-alice"] + sessionIDs {
            #expect(store.range(of: Data(secret.utf8)) == nil, "the store file holds '\(secret)'")
        }
    }

    @Test func eightPagesFetchedAtOnceOpenOneSessionOnTheInstance() async throws {
        // Given: eight pages, fetched eight at a time, the session opened by the pages themselves
        let pages = (1...8).map { "nav/page-\($0).html" }.joined(separator: "\n")
        let list = try folder.write(Data(pages.utf8), to: "eight.txt")
        // When
        let result = try await run(
            ["preload", list, "--concurrency", "8", "--per-host", "8"],
            identity: ["--token-command", "printf tok-alice"], whoami: false)
        // Then: one page carried the bearer and opened the one session; the others waited for its
        // answer and carried its cookie
        #expect(result.exitCode == 0, "\(result.stderr)")
        let requests = pageRequests
        #expect(requests.filter { $0.hasSuffix(" Bearer tok-alice") }.count == 1, "\(requests)")
        #expect(requests.filter { $0.hasSuffix(" cookie") }.count == requests.count - 1, "\(requests)")
        #expect(instance.state.withLock { $0.sessions.count } == 1)
    }

    @Test func aSessionTheInstanceAnswersWith401IsRenewedByRunningTheCommandAgain() async throws {
        // Every session expires at once: each request that carries only the cookie gets a 401.
        instance.state.withLock { state in
            state.idleTimeout = 0
            state.expiryStatus = 401
        }
        let runs = folder.path("runs.txt")
        let command = "echo run >> '\(runs)'; printf tok-alice"

        let (result, events) = try await preload(identity: ["--token-command", command])

        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(events.last?["completed"] as? Int == 4)
        #expect(events.last?["failed"] as? Int == 0)
        #expect(try await aliceEntries() == 4)
        let refused = pageRequests.filter { $0.hasSuffix(" cookie") }
        #expect(!refused.isEmpty, "no request carried the expired session: \(pageRequests)")
        let commandRuns = try String(contentsOfFile: runs, encoding: .utf8).split(separator: "\n").count
        #expect(commandRuns >= 2, "the token command ran \(commandRuns) time(s)")
        #expect(!server.requests.contains { $0.path == "/login.do" })
    }

    @Test(arguments: [nil, 401] as [Int?])
    func aTokenTheInstanceRefusesFailsEachPageNamingItAndStoresNothing(expiryStatus: Int?) async throws {
        instance.state.withLock { $0.expiryStatus = expiryStatus }

        // Without --whoami: the instance, which refuses the token, could not name the user.
        let (result, events) = try await preload(identity: ["--token-command", "printf tok-unknown"], whoami: false)

        #expect(result.exitCode == 1)
        let failed = events.filter { $0["event"] as? String == "failed" }
        let urls = failed.compactMap { $0["url"] as? String }.sorted()
        #expect(urls == [server.url("nav/a.html").absoluteString, server.url("nav/b.html").absoluteString])
        let refusal = expiryStatus == nil ? "redirected to the login page again" : "answered with status 401 again"
        for event in failed {
            let reason = event["reason"] as? String ?? ""
            #expect(reason.contains("refused a fresh token") && reason.contains(refusal), "\(reason)")
        }
        // One replay per page, never a loop.
        #expect(pageRequests.count == 4, "\(pageRequests)")
        #expect(try await aliceEntries() == nil)
        #expect(!result.everything.contains("tok-unknown"))
    }

    /// A token file that cannot be read would fail every request that needs the session: it is
    /// refused once, as a usage error naming it, before anything is asked for or stored.
    @Test(arguments: ["absent.txt", "a-folder"])
    func aTokenFileThatCannotBeReadIsRefusedBeforeAnyRequest(name: String) async throws {
        let tokenFile = folder.path(name)
        let isFolder = name == "a-folder"
        if isFolder { try FileManager.default.createDirectory(atPath: tokenFile, withIntermediateDirectories: false) }
        let reason = isFolder ? "is a directory" : "does not exist"
        for command in [["preload", urlFile], ["get", "nav/a.html"]] {
            let result = try await run(command, identity: ["--token-file", tokenFile], whoami: false)
            let name = command[0]
            #expect(result.exitCode == 64, "\(name): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(name): \(result.stdout)")
            #expect(result.stderr.hasPrefix(
                "Error: The value '\(tokenFile)' is invalid for '--token-file <file>': the file \(reason)\nUsage: "),
                    "\(name): \(result.stderr)")
        }
        #expect(server.requestCount == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.path("store.sqlite")))
    }

    @Test func aJWTCommandIsExchangedAtTheTokenEndpoint() async throws {
        let (result, events) = try await preload(
            identity: ["--jwt-command", "printf signed-alice", "--token-endpoint", "oauth_token.do"])

        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(events.last?["completed"] as? Int == 4)
        #expect(instance.state.withLock { $0.tokenRequests } == 1)
        #expect(instanceRequests.first == "/api/me Bearer access-1", "\(instanceRequests)")
        #expect(pageRequests.allSatisfy { $0.hasSuffix(" cookie") }, "\(pageRequests)")
        #expect(try await aliceEntries() == 4)
    }

    @Test func getKeepsTheSessionForTheNextRunAndRenewsItWhenTheInstanceAnswers401() async throws {
        let tokenFile = try folder.write(Data("tok-alice\n".utf8), to: "token.txt")
        let identity = ["--token-file", tokenFile, "--keep-session"]
        let cookieFile = folder.path("store.sqlite.cookies-\(alicePartition).json")

        let first = try await run(["get", "nav/home"], identity: identity)
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(first.stdout == "page /nav/home for alice")
        let mode = try FileManager.default.attributesOfItem(atPath: cookieFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // The next run carries on with the cookie, and no token.
        let second = try await run(["get", "nav/list"], identity: identity)
        #expect(second.stdout == "page /nav/list for alice")

        // The instance forgets every session and answers 401: the question who she is, asked with
        // the kept cookie, is asked again with the bearer, and the page goes with the new session.
        instance.state.withLock { state in
            state.sessions.removeAll()
            state.expiryStatus = 401
        }
        let third = try await run(["get", "nav/other"], identity: identity)
        #expect(third.exitCode == 0, "\(third.stderr)")
        #expect(third.stdout == "page /nav/other for alice")
        #expect(instanceRequests == [
            "/api/me Bearer tok-alice", "/nav/home cookie", "/api/me cookie", "/nav/list cookie", "/api/me cookie",
            "/api/me Bearer tok-alice", "/nav/other cookie",
        ])
        #expect(!(first.everything + second.everything + third.everything).contains("tok-alice"))

        // Logging out deletes the kept session.
        let logout = try await run(["logout"], identity: identity)
        #expect(logout.exitCode == 0, "\(logout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cookieFile))
    }

    /// An instance that sends an expired session to an identity provider elsewhere: `--login-host`
    /// names it, so the redirect is seen as the session's end and the page fetched again with a fresh
    /// token; without it the redirect is followed to the provider (which nothing answers here).
    @Test func aRedirectToALoginHostIsSeenAsTheSessionsEnd() async throws {
        let tokenFile = try folder.write(Data("tok-alice\n".utf8), to: "token.txt")
        let identity = ["--token-file", tokenFile, "--keep-session"]
        #expect(try await run(["get", "nav/home"], identity: identity).exitCode == 0)
        instance.state.withLock { state in
            state.sessions.removeAll()
            state.loginLocation = "http://idp.invalid/authorize?client=instance"
        }

        let unseen = try await run(["get", "nav/list"], identity: identity)
        #expect(unseen.exitCode == 1)
        #expect(unseen.stderr.contains("idp.invalid"), "\(unseen.stderr)")
        instance.state.withLock { $0.sessions.removeAll() }
        let seen = try await run(["get", "nav/other", "--login-host", "IDP.invalid"], identity: identity)

        #expect(seen.exitCode == 0, "\(seen.stderr)")
        #expect(seen.stdout == "page /nav/other for alice")
        #expect(instanceRequests.suffix(3) == ["/api/me cookie", "/api/me Bearer tok-alice", "/nav/other cookie"])
    }

    @Test func theGatewaySignedInAsAliceServesHerPagesAndStoresThemInHerPartition() async throws {
        let output = OutputFile(path: folder.path("serve.out"))
        let errors = OutputFile(path: folder.path("serve.err"))
        let gateway = try webcache.start(
            ["serve", "--port", "0"] + signedIn(["--token-command", "printf tok-alice"]), output: output, error: errors)
        let listening = try await output.lines(1).first.flatMap { URL(string: $0)?.port }
        guard let port = listening.flatMap({ UInt16(exactly: $0) }) else {
            gateway.send(SIGKILL)
            _ = await gateway.finish()
            Issue.record("webcache serve printed no URL: \(output.lines) \(errors.lines)")
            return
        }

        // The same page twice through the gateway as a proxy: the second is revalidated ("no-cache").
        var replies: [RawClient.Reply] = []
        for _ in 0..<2 {
            replies.append(try await RawClient.exchange(port: port, """
                GET \(server.url("nav/home").absoluteString) HTTP/1.1\r
                Host: 127.0.0.1:\(server.port)\r
                Connection: close\r
                \r

                """))
        }
        gateway.send(SIGTERM)
        let termination = await gateway.finish().termination

        #expect(replies.map(\.statusLine) == ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK"])
        #expect(replies.map(\.body) == ["page /nav/home for alice", "page /nav/home for alice"])
        #expect(replies.map { $0.headers["X-WebCache"] } == ["network", "revalidated"])
        #expect(instanceRequests == ["/api/me Bearer tok-alice", "/nav/home cookie", "/nav/home cookie"])
        #expect(termination == .exited(0), "\(errors.lines)")
        #expect(try await aliceEntries() == 1)
        #expect(!(output.lines + errors.lines).joined().contains("tok-alice"))
    }

    @Test func logoutDropsAKeptSessionEvenWhenItsStoreIsGone() async throws {
        let identity = ["--token-command", "printf tok-alice", "--keep-session"]
        let cookieFile = folder.path("store.sqlite.cookies-\(alicePartition).json")
        let first = try await run(["get", "nav/home"], identity: identity)
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: cookieFile))
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: folder.path("store.sqlite" + suffix))
        }

        let logout = try await run(["logout"], identity: identity)

        #expect(logout.exitCode == 0, "\(logout.stderr)")
        #expect(logout.stdout.contains("no entries were removed; the session's cookies were dropped"), "\(logout.stdout)")
        #expect(!FileManager.default.fileExists(atPath: cookieFile))
        #expect(!FileManager.default.fileExists(atPath: folder.path("store.sqlite")))
    }

    /// Waits until `semaphore` is signalled, false after two minutes, on a thread of its own.
    private static func arrival(_ semaphore: DispatchSemaphore) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + 120) == .success)
            }
        }
    }

    /// The partitions of signed-in users in `inspect --json` of `store`, with their entry counts.
    private func userPartitions(store: String) async throws -> [String: Int] {
        let result = try await webcache.run(["inspect", "--json", "--store", store])
        try #require(result.exitCode == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let partitions = try #require(object["partitions"] as? [[String: Any]])
        var users: [String: Int] = [:]
        for partition in partitions {
            guard let name = partition["name"] as? String, name != "guest" else { continue }
            users[name] = partition["entries"] as? Int ?? 0
        }
        return users
    }

    @Test func aLogoutByAnotherProcessEndsAPreloadInFlightForTheUser() async throws {
        instance.state.withLock { $0.pageCacheControl = "private, max-age=600" }
        let urls = try folder.write(Data("nav/held.html\n".utf8), to: "held.txt")
        let options = signedIn(["--token-command", "printf tok-alice", "--keep-session"], whoami: false)
        let output = OutputFile(path: folder.path("preload.out"))
        let errors = OutputFile(path: folder.path("preload.err"))
        gate.close()
        defer { gate.open() }

        // The preload's page reaches the instance, which starts the session, and its answer is held
        // back while another process logs the same user out of the same store.
        let preload = try webcache.start(["preload", urls, "--json"] + options, output: output, error: errors)
        #expect(await Self.arrival(heldArrived))
        let logout = try await webcache.run(["logout"] + options)
        #expect(logout.exitCode == 0, "\(logout.stderr)")
        let requestsBeforeRelease = server.requests.count
        gate.open()
        let termination = await preload.finish().termination

        #expect(termination == .exited(1), "\(errors.lines)")
        let events = try output.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let failed = events.filter { $0["event"] as? String == "failed" }
        #expect(failed.contains { $0["url"] as? String == server.url("nav/held.html").absoluteString }, "\(events)")
        for event in failed {
            let reason = event["reason"] as? String ?? ""
            #expect(reason.contains("signed out"), "\(reason)")
        }
        #expect(events.last?["completed"] as? Int == 0, "\(events)")
        // Nothing of the user was stored after the logout, no cookie file was written back, and no
        // request went out with the signed-out session (the page's requisites were not asked for).
        #expect(try await userPartitions(store: folder.path("store.sqlite")).values.allSatisfy { $0 == 0 })
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!files.contains { $0.contains("cookies") }, "\(files)")
        let sentAfter = server.requests.dropFirst(requestsBeforeRelease)
        #expect(sentAfter.isEmpty, "\(sentAfter.map(\.path))")
    }

    @Test func aGuestRedirectedToTheLoginPageFailsAndNothingOfTheLoginPageIsStored() async throws {
        let store = folder.path("guest.sqlite")
        let options = ["--store", store, "--instance", server.baseURL.absoluteString]

        let get = try await webcache.run(["get", "nav/home", "--guest"] + options)
        let preload = try await webcache.run(["preload", urlFile, "--json"] + options)

        #expect(get.exitCode == 1)
        #expect(!get.stdout.contains("login page"), "\(get.stdout)")
        #expect(get.stderr.contains("redirected the guest request for \(server.url("nav/home").absoluteString)"),
                "\(get.stderr)")
        #expect(get.stderr.contains("--token-command"), "\(get.stderr)")
        #expect(preload.exitCode == 1, "\(preload.stdout)")
        let events = try preload.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let failed = events.filter { $0["event"] as? String == "failed" }
        #expect(failed.count == 2, "\(preload.stdout)")
        #expect(failed.allSatisfy { ($0["reason"] as? String)?.contains("login page") == true }, "\(failed)")
        #expect(!server.requests.contains { $0.path == "/login.do" })
        let inspect = try await webcache.run(["inspect", "--json", "--store", store])
        let object = try #require(try JSONSerialization.jsonObject(with: inspect.stdoutData) as? [String: Any])
        #expect(object["entries"] as? Int == 0, "\(inspect.stdout)")
    }
}
