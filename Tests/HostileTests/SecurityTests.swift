import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
import WebCache

/// Partitions, cache keys and redirects cannot be used to serve one party's response to another.
@Suite struct PoisoningTests {
    @Test func oneUsersPrivateEntryIsNeverServedToAnotherUserOrAGuest() async throws {
        let server = try startOrigin { request in
            let who = request.headers["Authorization"] ?? "nobody"
            return OriginResponse(headers: ["Cache-Control": "private, max-age=3600"], body: .bytes(Data(who.utf8)))
        }
        defer { server.stop() }
        let factory = try CacheFactory()
        let alice = try factory.make(instance: server.baseURL, user: "alice", token: "token-alice")
        let bob = try factory.make(instance: server.baseURL, user: "bob", token: "token-bob")
        let guest = try factory.make(instance: server.baseURL)

        let forAlice = try await alice.data(for: WebRequest("account"))
        #expect(String(decoding: forAlice.body, as: UTF8.self) == "Bearer token-alice")
        #expect(try await alice.data(for: WebRequest("account")).source == .hit)

        let forBob = try await bob.data(for: WebRequest("account"))
        #expect(forBob.source == .network)
        #expect(String(decoding: forBob.body, as: UTF8.self) == "Bearer token-bob")
        let forGuest = try await guest.data(for: WebRequest("account"))
        #expect(forGuest.source == .network)
        #expect(String(decoding: forGuest.body, as: UTF8.self) == "nobody")
        // Even a policy that prefers any stored copy stays within the partition.
        let offline = await loadResult(guest, WebRequest("never-loaded"), policy: .returnCacheDataDontLoad)
        if case .failure(let error) = offline { #expect(error.code == .notCached) } else { Issue.record("served") }
        #expect(String(decoding: try await bob.data(for: WebRequest("account"), policy: .returnCacheDataDontLoad).body,
                       as: UTF8.self) == "Bearer token-bob")
        #expect(server.requestCount == 3)

        // Logging Alice out removes her entries and nobody else's.
        try await alice.logout()
        #expect(try await bob.data(for: WebRequest("account")).source == .hit)
        for cache in [alice, bob, guest] { await cache.close() }
    }

    @Test func cookiesAndTokensGoOnlyToTheHostsTheyBelongTo() async throws {
        let server = try startOrigin { request in
            let host = request.headers["Host"] ?? ""
            var headers: HTTPHeaders = ["Cache-Control": "no-store"]
            if host.hasPrefix("instance.test") {
                headers.append(name: "Set-Cookie", value: "sid=instance-session; Path=/")
                headers.append(name: "Set-Cookie", value: "stolen=1; Domain=other.test; Path=/")
                headers.append(name: "Set-Cookie", value: "wide=1; Domain=test; Path=/")
            }
            return OriginResponse(headers: headers, body: .bytes(Data("ok".utf8)))
        }
        defer { server.stop() }
        let port = server.port
        let factory = try CacheFactory()
        let instance = try #require(URL(string: "http://instance.test:\(port)/"))
        let cache = try factory.make(instance: instance, user: "alice", token: "token-alice") {
            $0.transportConfiguration.resolve = ["instance.test:\(port):127.0.0.1", "other.test:\(port):127.0.0.1"]
        }
        _ = try await cache.data(for: WebRequest("one"))
        _ = try await cache.data(for: WebRequest("two"))
        _ = try await cache.data(for: WebRequest("http://other.test:\(port)/three"))

        let requests = server.requests
        #expect(requests.count == 3)
        let second = try #require(requests.dropFirst().first)
        #expect(second.headers["Cookie"]?.contains("sid=instance-session") == true)
        let third = try #require(requests.last)
        #expect(third.headers["Host"] == "other.test:\(port)")
        #expect(third.headers["Cookie"] == nil, "\(third.headers)")
        #expect(third.headers["Authorization"] == nil)
        await cache.close()
    }

    @Test func aResponseVaryingOnAFieldIsNotServedForAnotherValue() async throws {
        let server = try startOrigin { request in
            let variant = request.headers["X-Variant"] ?? "absent"
            return OriginResponse(headers: ["Cache-Control": "max-age=3600", "Vary": "x-variant"],
                                  body: .bytes(Data("variant \(variant)".utf8)))
        }
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        let url = server.url("v")
        func body(_ headers: HTTPHeaders) async throws -> (String, ResponseSource) {
            let response = try await cache.data(for: WebRequest(url: url, headers: headers))
            return (String(decoding: response.body, as: UTF8.self), response.source)
        }
        #expect(try await body(["X-Variant": "evil"]) == ("variant evil", .network))
        #expect(try await body(["X-Variant": "good"]) == ("variant good", .network))
        #expect(try await body([:]) == ("variant absent", .network))
        #expect(try await body(["X-Variant": ""]) == ("variant ", .network))
        #expect(try await body(["X-Variant": "evil"]) == ("variant evil", .hit))
        #expect(try await body(["X-Variant": "good"]) == ("variant good", .hit))
        #expect(try await body([:]) == ("variant absent", .hit))
        await cache.close()
    }

    /// Two host names mapped to one origin, by `--resolve` or by `--connect-to`.
    static let mappings: [String] = ["resolve", "connect-to"]

    @Test(arguments: PoisoningTests.mappings)
    func aRequestForOneHostIsNeverAnsweredWithAnotherHostsEntry(_ mapping: String) async throws {
        let server = try startOrigin { request in
            OriginResponse(headers: ["Cache-Control": "max-age=3600"],
                           body: .bytes(Data("host \(request.headers["Host"] ?? "")".utf8)))
        }
        defer { server.stop() }
        let port = server.port
        let factory = try CacheFactory()
        let cache = try factory.make {
            if mapping == "resolve" {
                $0.transportConfiguration.resolve = ["a.test:\(port):127.0.0.1", "b.test:\(port):127.0.0.1"]
            } else {
                $0.transportConfiguration.connectTo = ["a.test:\(port):127.0.0.1:\(port)",
                                                       "b.test:\(port):127.0.0.1:\(port)"]
            }
        }
        let a = try await cache.data(for: WebRequest("http://a.test:\(port)/page"))
        let b = try await cache.data(for: WebRequest("http://b.test:\(port)/page"))
        let upper = try await cache.data(for: WebRequest("http://A.TEST:\(port)/page"))
        #expect(String(decoding: a.body, as: UTF8.self) == "host a.test:\(port)")
        #expect(String(decoding: b.body, as: UTF8.self) == "host b.test:\(port)")
        #expect(b.source == .network)
        #expect(String(decoding: upper.body, as: UTF8.self) == "host a.test:\(port)")
        #expect(upper.source == .hit)
        // A Host field set by the caller cannot file a response under another name.
        let forged = try await cache.data(for: WebRequest("http://a.test:\(port)/forged", headers: ["Host": "b.test:\(port)"]))
        _ = forged
        let honest = try await cache.data(for: WebRequest("http://b.test:\(port)/forged"))
        #expect(honest.source == .network)
        #expect(String(decoding: honest.body, as: UTF8.self) == "host b.test:\(port)")
        await cache.close()
    }

    @Test func aStoredRedirectRewritesNoOtherURL() async throws {
        let server = try startOrigin { request in
            switch request.target {
            case "/old": OriginResponse(status: 301, headers: ["Location": "/evil", "Cache-Control": "max-age=3600"])
            case "/evil": .text("evil", headers: ["Cache-Control": "max-age=3600"])
            default: .text("page \(request.target)", headers: ["Cache-Control": "max-age=3600"])
            }
        }
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        let old = try await cache.data(for: WebRequest(url: server.url("old")))
        #expect(String(decoding: old.body, as: UTF8.self) == "evil")
        #expect(old.redirects == [server.url("old")])
        // The redirect is stored for /old only.
        let oldAgain = try await cache.data(for: WebRequest(server.url("old").absoluteString, followsRedirects: false))
        #expect(oldAgain.status == 301)
        #expect(oldAgain.source == .hit)
        for path in ["old/", "old?x=1", "Old", "new", "old2"] {
            let other = try await cache.data(for: WebRequest(url: server.url(path)))
            #expect(other.status == 200, "\(path)")
            #expect(other.redirects.isEmpty, "\(path)")
            #expect(String(decoding: other.body, as: UTF8.self) != "evil", "\(path)")
        }
        await cache.close()
    }
}

/// Store files hold private data: only their owner may read them.
@Suite struct StoreFileModeTests {
    @Test func storeFilesAreReadableByTheirOwnerOnly() async throws {
        let server = try startOrigin { _ in .text("x", headers: ["Cache-Control": "max-age=60"]) }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let storePath = folder.path("fresh/folder/store.sqlite")
        var configuration = WebCache.Configuration(environment: ["HOME": folder.url.path])
        configuration.storePath = storePath
        let cache = try WebCache(configuration: configuration)
        _ = try await cache.data(for: WebRequest(url: server.url("x")))
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: storePath + suffix)
            let mode = try #require(attributes[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "store\(suffix) has mode \(String(mode, radix: 8))")
        }
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder.path("fresh/folder"))[.posixPermissions]
        #expect((folderMode as? Int).map { $0 & 0o077 } == 0)
        await cache.close()
    }
}

/// Credentials never show up in errors, logs or the CLI's output.
@Suite struct RedactionTests {
    static let token = "TOKEN-4c1d-secret"
    static let cookie = "COOKIE-77e2-secret"

    private static func instanceOrigin() throws -> OriginServer {
        try startOrigin { request in
            switch request.path {
            case "/broken":
                return OriginResponse(body: .raw { socket in
                    try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 50\r\nSet-Cookie: late=\(RedactionTests.cookie)\r\n\r\nshort")
                })
            default:
                return OriginResponse(
                    headers: ["Cache-Control": "private, max-age=3600",
                              "Set-Cookie": "sid=\(RedactionTests.cookie); Path=/; HttpOnly"],
                    body: .bytes(Data("<html><img src=/img.png></html>".utf8)))
            }
        }
    }

    @Test func theLibraryNeverLogsTokensCookiesOrPasswords() async throws {
        let server = try Self.instanceOrigin()
        defer { server.stop() }
        let lines = Mutex<[String]>([])
        let factory = try CacheFactory()
        let cache = try factory.make(instance: server.baseURL, user: "alice", token: Self.token) {
            $0.logger = Logger(level: .trace) { level, message in lines.withLock { $0.append("\(level) \(message)") } }
        }
        _ = try await cache.data(for: WebRequest("page", headers: ["Cookie": "extra=\(Self.cookie)"]))
        _ = try await cache.data(for: WebRequest("page"))
        let broken = await loadResult(cache, WebRequest("broken"))
        let withPassword = await loadResult(cache, WebRequest("http://user:\(Self.token)@127.0.0.1:\(server.port)/page"))
        _ = await cache.preload(["page", "broken", "http://user:\(Self.token)@127.0.0.1:\(server.port)/x"],
                                options: quickOptions())
        var texts = lines.withLock { $0 }
        for result in [broken, withPassword] {
            if case .failure(let error) = result { texts.append(error.description) }
        }
        #expect(texts.count > 3)
        for text in texts {
            #expect(!text.contains(Self.token), "\(text)")
            #expect(!text.contains(Self.cookie), "\(text)")
        }
        await cache.close()
    }

    @Test func theCommandLineNeverPrintsTokensCookiesOrPasswords() async throws {
        let server = try Self.instanceOrigin()
        defer { server.stop() }
        let home = try TemporaryFolder()
        let runner = WebcacheRunner(home: home)
        let store = home.path("store.sqlite")
        let identity = ["--instance", server.baseURL.absoluteString, "--user", "alice",
                        "--token-command", "echo \(Self.token)", "--store", store, "--log-level", "trace"]
        var outputs: [String] = []
        outputs.append(try await runner.run(["get", "page", "-i"] + identity).everything)
        outputs.append(try await runner.run(["get", "page", "-i", "--policy", "reload"] + identity).everything)
        outputs.append(try await runner.run(["get", "broken"] + identity).everything)
        let list = try home.write(Data("page\nbroken\n".utf8), to: "urls.txt")
        // One at a time, so that later requests of a run carry the cookie the first one set.
        outputs.append(try await runner.run(["preload", list, "--json", "--retries", "0", "-j", "1"] + identity).everything)
        outputs.append(try await runner.run(["preload", list, "--retries", "0", "-j", "1"] + identity).everything)
        for arguments in [["inspect", server.url("page").absoluteString, "--json"], ["inspect", server.url("page").absoluteString],
                          ["inspect", "--pages", "--json"], ["verify"]] {
            outputs.append(try await runner.run(arguments + ["--store", store, "--log-level", "trace"]).everything)
        }
        #expect(outputs.contains { $0.contains("<redacted>") })
        for output in outputs {
            #expect(!output.contains(Self.token), "\(output)")
            #expect(!output.contains(Self.cookie), "\(output)")
        }
        // The session did carry both to the instance, so their absence above is not an accident.
        #expect(server.requests.contains { $0.headers["Authorization"] == "Bearer \(Self.token)" })
        #expect(server.requests.contains { $0.headers["Cookie"]?.contains(Self.cookie) == true })
    }
}
