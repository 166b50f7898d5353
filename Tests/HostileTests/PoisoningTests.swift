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
        _ = try await cache.data(for: WebRequest("http://a.test:\(port)/forged", headers: ["Host": "b.test:\(port)"]))
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
