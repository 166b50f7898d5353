import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCache
import WebCacheTestSupport

@testable import Gateway

@Suite(.timeLimit(.minutes(5)))
struct GatewayServerTests {
    // MARK: - Caching

    @Test func secondRequestIsAHitAndTheOriginIsNotAsked() async throws {
        try await GatewayHarness.run(origin: Origins.validated("hello", cacheControl: "max-age=3600")) { harness in
            // Given
            let first = try await harness.get("/page")
            // When
            let second = try await harness.get("/page")
            // Then
            #expect(first.status == 200)
            #expect(first.servedAs == "network")
            #expect(second.servedAs == "hit")
            #expect(second.body == first.body)
            #expect(String(decoding: second.body, as: UTF8.self) == "hello /page")
            #expect(second.headers["Age"] != nil)
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func responseIsStoredBeforeTheClientHasItsLastByte() async throws {
        try await GatewayHarness.run(origin: Origins.validated("soon", cacheControl: "max-age=3600")) { harness in
            // No waiting between the two: the first reply is complete only once its entry is stored.
            let request = HTTPRequest(url: harness.origin.url("/next"))
            let first = try await GatewayHarness.send(request, via: harness.proxied)
            let second = try await GatewayHarness.send(request, via: harness.proxied)
            #expect(first.servedAs == "network")
            #expect(second.servedAs == "hit")
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func staleEntryIsRevalidatedWithTheOrigin() async throws {
        try await GatewayHarness.run(origin: Origins.validated("fresh", cacheControl: "no-cache")) { harness in
            _ = try await harness.get("/doc")
            let second = try await harness.get("/doc")
            #expect(second.status == 200)
            #expect(second.servedAs == "revalidated")
            #expect(String(decoding: second.body, as: UTF8.self) == "fresh /doc")
            let requests = harness.origin.requests
            #expect(requests.count == 2)
            #expect(requests.last?.headers["If-None-Match"] == "\"v1\"")
        }
    }

    @Test(arguments: [
        ("If-None-Match", "\"v1\""),
        ("If-None-Match", "W/\"v1\""),
        ("If-Modified-Since", "Sun, 01 Jan 2034 00:00:00 GMT"),
    ])
    func clientConditionalRequestIsAnswered304FromTheStore(field: String, value: String) async throws {
        let handler: OriginServer.Handler = { request in
            .text("body", headers: ["ETag": "\"v1\"", "Last-Modified": "Sat, 01 Jan 2033 00:00:00 GMT",
                                    "Cache-Control": "max-age=3600"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            _ = try await harness.get("/logo")
            let conditional = try await harness.get("/logo", headers: [field: value])
            #expect(conditional.status == 304)
            #expect(conditional.body.isEmpty)
            #expect(conditional.servedAs == "hit")
            #expect(conditional.headers["ETag"] == "\"v1\"")
            #expect(harness.origin.requestCount == 1)
        }
    }

    /// Only a read's validators are answered from the store; another method's reach the origin, which
    /// alone can evaluate them: `If-None-Match: *` on a PUT creates only what does not exist.
    @Test func theValidatorsOfAnUnsafeRequestReachTheOrigin() async throws {
        let handler: OriginServer.Handler = { request in
            if request.method == .put, request.headers["If-None-Match"] == "*" {
                return .text("exists", status: 412)
            }
            return .text("body", headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            _ = try await harness.get("/doc")
            let validators: HTTPHeaders = ["If-None-Match": "*", "If-Modified-Since": "Sun, 01 Jan 2034 00:00:00 GMT"]
            let put = try await harness.get("/doc", method: .put, headers: validators, body: Data("new".utf8))
            #expect(put.status == 412)
            let sent = try #require(harness.origin.requests.last)
            #expect(sent.method == .put)
            #expect(sent.headers["If-None-Match"] == "*")
            #expect(sent.headers["If-Modified-Since"] == "Sun, 01 Jan 2034 00:00:00 GMT")
        }
    }

    @Test func clientConditionalWithAnotherValidatorGetsTheBody() async throws {
        try await GatewayHarness.run(origin: Origins.validated("body", cacheControl: "max-age=3600")) { harness in
            _ = try await harness.get("/logo")
            let reply = try await harness.get("/logo", headers: ["If-None-Match": "\"other\""])
            #expect(reply.status == 200)
            #expect(String(decoding: reply.body, as: UTF8.self) == "body /logo")
        }
    }

    @Test func headIsAnsweredFromTheStore() async throws {
        let origin = Origins.validated("twelve bytes", cacheControl: "max-age=3600")
        try await GatewayHarness.run(origin: origin) { harness in
            let get = try await harness.get("/file")
            let head = try await harness.get("/file", method: .head)
            #expect(head.status == 200)
            #expect(head.servedAs == "hit")
            #expect(head.body.isEmpty)
            #expect(head.headers["Content-Length"] == String(get.body.count))
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func varyKeepsVariantsApart() async throws {
        let handler: OriginServer.Handler = { request in
            .text("lang=\(request.headers["Accept-Language"] ?? "none")",
                  headers: ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let english = try await harness.get("/greeting", headers: ["Accept-Language": "en"])
            let french = try await harness.get("/greeting", headers: ["Accept-Language": "fr"])
            let englishAgain = try await harness.get("/greeting", headers: ["Accept-Language": "en"])
            let frenchAgain = try await harness.get("/greeting", headers: ["Accept-Language": "fr"])
            #expect(String(decoding: english.body, as: UTF8.self) == "lang=en")
            #expect(String(decoding: french.body, as: UTF8.self) == "lang=fr")
            #expect(french.servedAs == "network")
            #expect(englishAgain.servedAs == "hit")
            #expect(String(decoding: englishAgain.body, as: UTF8.self) == "lang=en")
            #expect(frenchAgain.servedAs == "hit")
            #expect(String(decoding: frenchAgain.body, as: UTF8.self) == "lang=fr")
            #expect(harness.origin.requestCount == 2)
        }
    }

    @Test func noStoreResponsesAreNeverStored() async throws {
        try await GatewayHarness.run(origin: Origins.validated("secret", cacheControl: "no-store")) { harness in
            let first = try await harness.get("/account")
            let second = try await harness.get("/account")
            #expect(first.servedAs == "network")
            #expect(second.servedAs == "network")
            #expect(harness.origin.requestCount == 2)
            let stored = try harness.cache.store.variants(partition: harness.cache.partition, method: .get,
                                                          url: harness.origin.url("/account").absoluteString)
            #expect(stored.isEmpty)
        }
    }

    @Test func postIsPassedThroughWithItsBodyAndInvalidates() async throws {
        let handler: OriginServer.Handler = { request in
            if request.method == .post {
                return .text("got \(String(decoding: request.body, as: UTF8.self))", status: 201)
            }
            return .text("item", headers: ["Cache-Control": "max-age=3600"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            _ = try await harness.get("/item")
            #expect(try await harness.get("/item").servedAs == "hit")
            let post = try await harness.get("/item", method: .post, headers: ["Content-Type": "text/plain"],
                                             body: Data("new value".utf8))
            #expect(post.status == 201)
            #expect(String(decoding: post.body, as: UTF8.self) == "got new value")
            let after = try await harness.get("/item")
            #expect(after.servedAs == "network")
            #expect(harness.origin.requests.map(\.method) == [.get, .post, .get])
        }
    }

    @Test func aRequestBodyOverTheLimitIsRefusedWith413AndNeverReachesTheOrigin() async throws {
        let handler: OriginServer.Handler = { request in .text("got \(request.body.count) bytes", status: 201) }
        try await GatewayHarness.run(origin: handler, configure: { configuration, _ in
            configuration.maximumRequestBodySize = 1_000
        }) { harness in
            let url = harness.origin.url("/upload").absoluteString
            // A declared length over the limit, then a chunked body that grows over it
            let declared = try await GatewayHarness.send(
                HTTPRequest(method: .post, url: harness.origin.url("/upload"), body: Data(count: 1_001)),
                via: harness.proxied)
            let chunked = try await RawClient.exchange(port: harness.gateway.port, """
                POST \(url) HTTP/1.1\r
                Host: 127.0.0.1\r
                Transfer-Encoding: chunked\r
                Connection: close\r
                \r
                258\r
                \(String(repeating: "a", count: 600))\r
                258\r
                \(String(repeating: "b", count: 600))\r
                0\r
                \r

                """)

            let message = "The request body for \(url) is larger than the gateway accepts (1000 bytes).\n"
            #expect(declared.status == 413)
            #expect(String(decoding: declared.body, as: UTF8.self) == message)
            #expect(chunked.statusLine.hasPrefix("HTTP/1.1 413"))
            #expect(chunked.body == message)
            #expect(harness.origin.requestCount == 0)
            // Both answers are in the access log, as the gateway's own
            await harness.accessLog.waitForCount(2)
            #expect(harness.accessLog.all.map(\.line) == [
                "POST \(url) 413 gateway \(message.utf8.count)", "POST \(url) 413 gateway \(message.utf8.count)",
            ])
            // The gateway goes on serving, a body at the limit included
            let accepted = try await harness.get("/upload", method: .post, body: Data(count: 1_000))
            #expect(accepted.status == 201)
            #expect(String(decoding: accepted.body, as: UTF8.self) == "got 1000 bytes")
            #expect(harness.origin.requests.map(\.bodyLength) == [1_000])
        }
    }

    @Test(arguments: [3600.0, nil] as [TimeInterval?])
    func unreachableOriginFallsBackToAStaleEntryOnlyWithMaxStale(maxStale: TimeInterval?) async throws {
        let origin = Origins.validated("old", cacheControl: "max-age=0")
        let configure = { (settings: inout GatewayServer.Configuration, _: URL) in settings.maxStale = maxStale }
        try await GatewayHarness.run(origin: origin, configure: configure) { harness in
            _ = try await harness.get("/news")
            harness.origin.stop()
            let reply = try await harness.get("/news")
            if maxStale != nil {
                #expect(reply.status == 200)
                #expect(reply.servedAs == "stale")
                #expect(String(decoding: reply.body, as: UTF8.self) == "old /news")
            } else {
                #expect(reply.status == 502)
                #expect(String(decoding: reply.body, as: UTF8.self).contains("/news"))
            }
        }
    }

    // MARK: - Proxy modes

    @Test func requestThatLoopsBackToTheGatewayIsRefused() async throws {
        try await GatewayHarness.run(origin: Origins.validated("x", cacheControl: "max-age=60")) { harness in
            let reply = try await GatewayHarness.send(HTTPRequest(url: harness.gateway.url.appending(path: "self")),
                                                      via: harness.proxied)
            #expect(reply.status == 508)
            #expect(String(decoding: reply.body, as: UTF8.self).contains("came back to this gateway"))
        }
    }

    @Test func forwardProxyAcceptsAbsoluteFormAndDropsHopByHopFields() async throws {
        let handler: OriginServer.Handler = { request in
            let seen = request.headers.map { $0.name.lowercased() }.sorted().joined(separator: ",")
            return .text(seen, headers: ["Cache-Control": "max-age=60", "Connection": "X-Origin-Hop",
                                         "X-Origin-Hop": "1", "X-End-To-End": "kept"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let target = harness.origin.url("/raw").absoluteString
            let reply = try await RawClient.exchange(port: harness.gateway.port, """
                GET \(target) HTTP/1.1\r
                Host: 127.0.0.1\r
                Connection: close, X-Client-Hop\r
                X-Client-Hop: secret\r
                Proxy-Connection: keep-alive\r
                X-Client-End: kept\r
                \r

                """)
            #expect(reply.statusLine.hasPrefix("HTTP/1.1 200"))
            #expect(reply.headers["X-WebCache"] == "network")
            #expect(reply.headers["X-End-To-End"] == "kept")
            #expect(reply.headers["X-Origin-Hop"] == nil)
            let seen = reply.body.split(separator: ",").map(String.init)
            #expect(seen.contains("x-client-end"))
            #expect(seen.contains("via"))
            #expect(!seen.contains("x-client-hop"))
            #expect(!seen.contains("proxy-connection"))
        }
    }

    @Test func reverseProxyMapsPathsOntoTheUpstream() async throws {
        let handler: OriginServer.Handler = { request in
            if request.path == "/old" {
                let port = request.headers["X-Port"] ?? ""
                return OriginResponse(status: 301, headers: ["Location": "http://127.0.0.1:\(port)/new"])
            }
            return .text("at \(request.target)", headers: ["Cache-Control": "max-age=60"])
        }
        try await GatewayHarness.run(origin: handler, configure: { configuration, origin in
            configuration.upstream = origin
        }) { harness in
            let url = harness.gateway.url.appending(path: "docs/page").absoluteString + "?q=a%20b"
            let reply = try await GatewayHarness.send(HTTPRequest(url: URL(string: url)!), via: harness.direct)
            #expect(reply.status == 200)
            #expect(String(decoding: reply.body, as: UTF8.self) == "at /docs/page?q=a%20b")
            let again = try await GatewayHarness.send(HTTPRequest(url: URL(string: url)!), via: harness.direct)
            #expect(again.servedAs == "hit")

            let redirect = try await GatewayHarness.send(
                HTTPRequest(url: harness.gateway.url.appending(path: "old"),
                            headers: ["X-Port": "\(harness.origin.port)"]),
                via: harness.direct)
            #expect(redirect.status == 301)
            #expect(redirect.headers["Location"] == harness.gateway.url.appending(path: "new").absoluteString)
        }
    }

    @Test func pathWithoutUpstreamIsABadRequestThatSaysWhy() async throws {
        try await GatewayHarness.run(origin: Origins.validated("x", cacheControl: "max-age=60")) { harness in
            let reply = try await GatewayHarness.send(HTTPRequest(url: harness.gateway.url.appending(path: "page")),
                                                      via: harness.direct)
            #expect(reply.status == 400)
            let message = String(decoding: reply.body, as: UTF8.self)
            #expect(message.contains("'/page'"))
            #expect(message.contains("--upstream"))
            #expect(harness.origin.requestCount == 0)
        }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request without Host, or any request with two Host lines, is
    /// answered 400 and goes no further; HTTP/1.0 did not need one.
    @Test func aRequestWithoutOneHostIsABadRequest() async throws {
        try await GatewayHarness.run(origin: Origins.validated("x", cacheControl: "max-age=60")) { harness in
            let target = harness.origin.url("/page").absoluteString
            let missing = try await RawClient.exchange(
                port: harness.gateway.port, "GET \(target) HTTP/1.1\r\nConnection: close\r\n\r\n")
            let twice = try await RawClient.exchange(
                port: harness.gateway.port,
                "GET \(target) HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\nConnection: close\r\n\r\n")
            #expect(missing.statusLine.hasPrefix("HTTP/1.1 400"), "\(missing.statusLine)")
            // The gateway's own answer, one head and a sentence, logged as every answer is
            // (libmicrohttpd's wrote its head twice, before an HTML page, and was not logged)
            #expect(missing.body.contains("has no Host field"), "\(missing.body)")
            #expect(!missing.body.contains("HTTP/1.1 400"), "\(missing.body)")
            #expect(twice.statusLine.hasPrefix("HTTP/1.1 400"), "\(twice.statusLine)")
            #expect(twice.body.contains("2 Host fields"))
            #expect(harness.origin.requestCount == 0)
            await harness.accessLog.waitForCount(2)
            #expect(harness.accessLog.all.map(\.status) == [400, 400])
            let old = try await RawClient.exchange(port: harness.gateway.port, "GET \(target) HTTP/1.0\r\n\r\n")
            #expect(old.statusLine.contains(" 200"), "\(old.statusLine)")
            #expect(harness.origin.requestCount == 1)
        }
    }

    /// RFC 9112 §3.2: a request target holds no space or control character; one that does is
    /// answered 400 by the gateway, once, naming it.
    @Test func aTargetWithASpaceIsABadRequest() async throws {
        try await GatewayHarness.run(origin: Origins.validated("x", cacheControl: "max-age=60")) { harness in
            let target = harness.origin.url("/a b").absoluteString.replacingOccurrences(of: "%20", with: " ")
            let reply = try await RawClient.exchange(
                port: harness.gateway.port, "GET \(target) HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
            #expect(reply.statusLine.hasPrefix("HTTP/1.1 400"), "\(reply.statusLine)")
            #expect(reply.body.contains("holds a space or a control character"), "\(reply.body)")
            #expect(!reply.body.contains("HTTP/1.1 400"), "\(reply.body)")
            #expect(harness.origin.requestCount == 0)
        }
    }

    /// RFC 9110 §5.1, §5.5: a field whose name is not a token (a space in it or before its colon, a
    /// control character) or whose value holds a CR is answered 400 naming it and goes no further,
    /// where the gateway answered 502 or forwarded it as something else.
    @Test func aMalformedFieldIsABadRequestThatNamesIt() async throws {
        try await GatewayHarness.run(origin: Origins.validated("x", cacheControl: "max-age=60")) { harness in
            let target = harness.origin.url("/page").absoluteString
            let fields = ["Bad Name: v", "Content-Length : 0", "X-\u{01}: v", "X-Value: a\rb"]
            let names = ["\"Bad Name\"", "\"Content-Length \"", "\"X-\\u{01}\"", "\"X-Value\""]
            for (field, name) in zip(fields, names) {
                let reply = try await RawClient.exchange(
                    port: harness.gateway.port,
                    "GET \(target) HTTP/1.1\r\nHost: a.test\r\n\(field)\r\nConnection: close\r\n\r\n")
                #expect(reply.statusLine.hasPrefix("HTTP/1.1 400"), "\(field): \(reply.statusLine)")
                #expect(reply.body.contains("has a field \(name) whose"), "\(reply.body)")
            }
            #expect(harness.origin.requestCount == 0)
            let fine = try await RawClient.exchange(
                port: harness.gateway.port,
                "GET \(target) HTTP/1.1\r\nHost: a.test\r\nX-Fine: a b\r\nConnection: close\r\n\r\n")
            #expect(fine.statusLine.contains(" 200"), "\(fine.statusLine)")
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func connectIsRefusedWith501() async throws {
        try await GatewayHarness.run(origin: Origins.validated("x", cacheControl: "max-age=60")) { harness in
            let reply = try await RawClient.exchange(port: harness.gateway.port, """
                CONNECT example.com:443 HTTP/1.1\r
                Host: example.com:443\r
                \r

                """)
            #expect(reply.statusLine.hasPrefix("HTTP/1.1 501"))
            #expect(reply.body.contains("CONNECT"))
        }
    }

    // MARK: - Offline

    @Test func offlineServesWhatIsStoredAnd504ForTheRest() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "gateway-offline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Stale from the moment it is stored; offline, it is served all the same.
        let origin = OriginServer(handler: Origins.validated("kept", cacheControl: "max-age=0"))
        try origin.start()
        defer { origin.stop() }
        let cache = try GatewayHarness.makeCache(folder: folder)
        try await GatewayHarness.serve(cache: cache, origin: origin) { harness in
            _ = try await harness.get("/stored")
        }
        try await GatewayHarness.serve(cache: cache, origin: origin, configure: { configuration, _ in
            configuration.offline = true
        }) { harness in
            let stored = try await harness.get("/stored")
            let missing = try await harness.get("/missing")
            let post = try await harness.get("/stored", method: .post, body: Data("x".utf8))
            // A stored GET response answers GET and HEAD alone (RFC 9111 §4), not the other safe methods.
            let options = try await harness.get("/stored", method: .options)
            let trace = try await harness.get("/stored", method: HTTPMethod(rawValue: "TRACE"))
            #expect(stored.status == 200)
            #expect(stored.servedAs == "stale")
            #expect(String(decoding: stored.body, as: UTF8.self) == "kept /stored")
            #expect(missing.status == 504)
            #expect(String(decoding: missing.body, as: UTF8.self).contains("/missing"))
            #expect(post.status == 504)
            #expect(options.status == 504)
            #expect(trace.status == 504)
            #expect(options.servedAs == nil)
        }
        #expect(origin.requestCount == 1)
        await cache.close()
    }

    // MARK: - Streaming and load

    @Test func twentyMegabyteBodyStreamsThroughIntact() async throws {
        let size = 20 * 1024 * 1024
        let blockSize = 256 * 1024
        // Deterministic, non-repeating-per-block content, produced block by block on both sides.
        let block: @Sendable (Int) -> Data = { offset in
            Data((0..<blockSize).map { UInt8(truncatingIfNeeded: (offset + $0) &* 31 >> 3) })
        }
        let handler: OriginServer.Handler = { _ in
            OriginResponse(
                status: 200, headers: ["Cache-Control": "max-age=3600", "Content-Type": "application/octet-stream"],
                body: .stream(contentLength: size) { writer in
                    for offset in stride(from: 0, to: size, by: blockSize) { try writer.write(block(offset)) }
                })
        }
        var expected = Digest()
        for offset in stride(from: 0, to: size, by: blockSize) { expected.update(block(offset)) }
        try await GatewayHarness.run(origin: handler) { harness in
            for round in 0..<2 {
                let response = try await harness.proxied.send(HTTPRequest(url: harness.origin.url("/big.bin")))
                var digest = Digest()
                for try await chunk in response.body { digest.update(chunk) }
                #expect(response.head.status == 200)
                #expect(response.head.headers["X-WebCache"] == (round == 0 ? "network" : "hit"))
                #expect(digest.count == size)
                #expect(digest.value == expected.value)
            }
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func twentyConcurrentClientsAllGetTheirOwnResponse() async throws {
        try await GatewayHarness.run(origin: Origins.validated("item", cacheControl: "max-age=3600")) { harness in
            let results = try await withThrowingTaskGroup(of: (Int, GatewayHarness.Reply).self) { group in
                for index in 0..<20 {
                    group.addTask {
                        var settings = CurlTransport.Configuration()
                        settings.proxy = harness.gateway.url.absoluteString
                        let client = try CurlTransport(configuration: settings)
                        return (index, try await GatewayHarness.send(
                            HTTPRequest(url: harness.origin.url("/n/\(index % 5)")), via: client))
                    }
                }
                var all: [(Int, GatewayHarness.Reply)] = []
                for try await result in group { all.append(result) }
                return all
            }
            #expect(results.count == 20)
            for (index, reply) in results {
                #expect(reply.status == 200)
                #expect(String(decoding: reply.body, as: UTF8.self) == "item /n/\(index % 5)")
            }
            await harness.accessLog.waitForCount(20)
            #expect(harness.accessLog.all.allSatisfy { $0.isComplete && $0.status == 200 })
            for index in 0..<5 {
                #expect(try await harness.get("/n/\(index)").servedAs == "hit")
            }
        }
    }

    // MARK: - Lifecycle

    @Test func stoppingClosesTheListeningSocket() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "gateway-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try GatewayHarness.makeCache(folder: folder)
        let (port, pseudonym) = try await GatewayServer.serve(cache: cache) { gateway in
            #expect(RawClient.canConnect(port: gateway.port))
            return (gateway.port, gateway.viaPseudonym)
        }
        // The freed port may already belong to another test's server. Whatever listens there now must
        // not be this gateway, which would answer a request carrying its own Via pseudonym with 508.
        if RawClient.canConnect(port: port) {
            let reply = try? await RawClient.exchange(
                port: port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nVia: 1.1 \(pseudonym)\r\nConnection: close\r\n\r\n")
            #expect(reply.map { !$0.statusLine.contains(" 508 ") } ?? true, "the stopped gateway still answers")
        }
        await cache.close()
    }

    @Test(arguments: ["localhost", "300.1.1.1", ""])
    func unusableBindAddressIsRejectedByName(address: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "gateway-bind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try GatewayHarness.makeCache(folder: folder)
        var configuration = GatewayServer.Configuration()
        configuration.bindAddress = address
        let error = await #expect(throws: GatewayError.self) {
            try await GatewayServer.serve(cache: cache, configuration: configuration) { _ in }
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("'\(address)'") == true)
        await cache.close()
    }
}
