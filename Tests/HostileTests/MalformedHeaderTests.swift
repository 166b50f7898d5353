import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCache

/// Origins that send malformed caching and cookie fields: nothing crashes, and the cache errs on
/// the side of asking the origin again.
@Suite struct MalformedHeaderTests {
    /// Serves `/x` with `headers`, counting requests.
    private func origin(_ headers: HTTPHeaders, body: String = "content") throws -> OriginServer {
        try startOrigin { _ in
            OriginResponse(status: 200, headers: headers, body: .bytes(Data(body.utf8)))
        }
    }

    /// Loads `/x` twice; returns the second response's source and how many requests reached the origin.
    private func loadTwice(_ headers: HTTPHeaders) async throws -> (second: ResponseSource, requests: Int) {
        let server = try origin(headers)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        let first = try await cache.data(for: WebRequest(url: server.url("x")))
        #expect(first.status == 200)
        #expect(String(decoding: first.body, as: UTF8.self) == "content")
        let second = try await cache.data(for: WebRequest(url: server.url("x")))
        #expect(second.status == 200)
        #expect(String(decoding: second.body, as: UTF8.self) == "content")
        #expect(try await cache.store.verify().isSound)
        await cache.close()
        return (second.source, server.requestCount)
    }

    static let staleCases: [String] = [
        "Expires: garbage", "Expires: 0", "Expires: -1", "Expires: Thu, 32 Jan 2099 00:00:00 GMT",
        "Expires: Sun, 06 Nov 1994 08:49:37 GMT", "Cache-Control: max-age=abc", "Cache-Control: max-age=-5",
        "Cache-Control: max-age=\"60", "Cache-Control: max-age=1e9999",
    ]

    @Test(arguments: MalformedHeaderTests.staleCases)
    func anUnusableFreshnessFieldMeansStale(_ field: String) async throws {
        let parts = field.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let outcome = try await loadTwice([parts[0]: parts[1]])
        #expect(outcome.second != .hit, "\(field) was served as fresh")
        #expect(outcome.requests == 2)
    }

    static let oddButHarmless: [HTTPHeaders] = [
        ["Cache-Control": "max-age=60", "Date": "yesterday"],
        ["Cache-Control": "max-age=60", "Date": "Sun, 06 Nov 99999 08:49:37 GMT"],
        ["Cache-Control": "max-age=60, max-age=abc, no-store=\"x, private=\"unterminated"],
        ["Cache-Control": ",,,;;;===\"\"\"", "Expires": "\u{00e9}t\u{00e9}"],
        ["Cache-Control": "max-age=60", "ETag": "unquoted-etag"],
        ["Cache-Control": "max-age=0", "ETag": "\"unterminated"],
        ["Cache-Control": "no-cache", "ETag": "W/\"\"", "Last-Modified": "never"],
        ["Cache-Control": "max-age=60", "Vary": ",,, \"quoted\", \u{00fc}, accept-language;q=1"],
        ["Cache-Control": "max-age=60", "Vary": String(repeating: "x-field, ", count: 2000)],
        ["Cache-Control": "max-age=60", "Age": "-100"],
        ["Cache-Control": "max-age=60", "Age": "99999999999999999999999"],
        ["Cache-Control": "max-age=99999999999999999999999"],
    ]

    @Test(arguments: MalformedHeaderTests.oddButHarmless)
    func oddFieldsNeitherCrashNorBreakLoading(_ headers: HTTPHeaders) async throws {
        let outcome = try await loadTwice(headers)
        #expect((1...2).contains(outcome.requests))
    }

    @Test func ageTooLargeToCountStillLeavesAResponseStale() async throws {
        // An enormous Age means the response is older than any max-age: never fresh.
        let outcome = try await loadTwice(["Cache-Control": "max-age=60", "Age": "99999999999999999999999"])
        #expect(outcome.second != .hit)
    }

    @Test func garbageVaryFieldNamesNeverMatchARealHeader() async throws {
        let server = try startOrigin { request in
            let language = request.headers["Accept-Language"] ?? "none"
            return OriginResponse(headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language, \"x\", ,"],
                                  body: .bytes(Data(language.utf8)))
        }
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        let english = try await cache.data(for: WebRequest(url: server.url("x"), headers: ["Accept-Language": "en"]))
        let french = try await cache.data(for: WebRequest(url: server.url("x"), headers: ["Accept-Language": "fr"]))
        #expect(String(decoding: english.body, as: UTF8.self) == "en")
        #expect(String(decoding: french.body, as: UTF8.self) == "fr")
        #expect(french.source == .network)
        await cache.close()
    }

    @Test func malformedSetCookieLinesAreIgnoredAndTheWellFormedOneKept() async throws {
        let lines = [
            "=no-name", "no-equals-sign", "ctl=a\u{1}b", "big=" + String(repeating: "v", count: 5000),
            "dom=1; Domain=..", "dom2=1; Domain=com", "far=1; Domain=elsewhere.example", "date=1; Expires=garbage",
            "age=1; Max-Age=abc; Max-Age=99999999999999999999", "__Host-x=1; Path=/", "sec=1; Secure",
            "good=yes; Path=/; HttpOnly",
        ]
        let server = try startOrigin { _ in
            var headers: HTTPHeaders = ["Cache-Control": "no-store"]
            for line in lines { headers.append(name: "Set-Cookie", value: line) }
            return OriginResponse(headers: headers, body: .bytes(Data("ok".utf8)))
        }
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make(instance: server.baseURL, user: "alice")
        _ = try await cache.data(for: WebRequest("first"))
        _ = try await cache.data(for: WebRequest("second"))
        let second = try #require(server.requests.last)
        let cookies = Set((second.headers["Cookie"] ?? "").split(separator: ";").map {
            $0.trimmingCharacters(in: .whitespaces)
        })
        // Lenient RFC 6265 parsing keeps the cookies whose bad attributes are merely ignored; a
        // loopback origin counts as secure (RFC 6265bis), so `Secure` is accepted from it.
        #expect(cookies.contains("good=yes"))
        #expect(cookies.isSubset(of: ["good=yes", "date=1", "age=1", "dom=1", "sec=1"]), "\(cookies)")
        for refused in ["no-name", "no-equals-sign", "ctl=", "big=", "dom2=", "far=", "__Host-x="] {
            #expect(!cookies.contains { $0.hasPrefix(refused) }, "\(refused)")
        }
        await cache.close()
    }
}
