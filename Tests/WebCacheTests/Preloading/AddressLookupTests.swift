import Discovery
import Foundation
import HTTPCore
import Testing

@testable import WebCache

/// The address policy's name lookups: they block, so they run on threads of their own, once per host
/// and a few at once, and what asks for them waits without holding a thread of the cooperative pool.
@Suite(.timeLimit(.minutes(2)))
struct AddressLookupTests {
    @Test func lookupsRunOffThePoolOncePerHostAndAtMostALimitAtOnce() async throws {
        // Given a resolver that answers only when the test lets it
        let release = DispatchSemaphore(value: 0)
        let calls = Shared<[String]>([])
        let running = Shared((now: 0, most: 0))
        let policy = AddressPolicy { host in
            calls.update { $0.append(host) }
            running.update { $0 = ($0.now + 1, max($0.most, $0.now + 1)) }
            release.wait()
            running.update { $0.now -= 1 }
            return host.hasPrefix("private")
        }
        let hosts = (0..<20).map { $0 < 10 ? "private\($0).test" : "public\($0).test" }
        // When every host is asked for three times at once, by many more tasks than the pool has threads
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                for host in hosts { group.addTask { await policy.resolve([host]) } }
            }
            while running.value.now < AddressPolicy.lookupThreadLimit { await Task.yield() }
            // Then, while the lookups wait on the resolver, other work on the pool goes on
            let sum = await Task { (1...100).reduce(0, +) }.value
            #expect(sum == 5050)
            for _ in hosts { release.signal() }
            await group.waitForAll()
        }
        // And no more lookups ran at once than the limit, each host looked up once
        #expect(running.value.most == AddressPolicy.lookupThreadLimit)
        #expect(calls.value.sorted() == hosts.sorted())
        // And the checks that cannot wait find the verdicts without looking up again
        #expect(hosts.allSatisfy { policy.isPrivate(host: $0) == $0.hasPrefix("private") })
        #expect(calls.value.count == hosts.count)
    }

    @Test func thePagesReferencesAreResolvedByTheHostsTheirChecksAskFor() async throws {
        let calls = Shared<[String]>([])
        let policy = AddressPolicy { host in
            calls.update { $0.append(host) }
            return false
        }
        let texts = [
            "http://a.test/x.css", "http://a.test:8080/y.png", "https://b.test?q=1", "http://[::1]:81/z.js",
            "http://user:secret@c.test/", "http://a.test/other.css", "https://D.test#top",
            "http://CDN.Example.COM/x.png", "http://ex%41mple.test/y.png",
        ]
        let references = try texts.map {
            Reference(url: try #require(URL(string: $0)), kind: .image, source: .init(element: "img"), isRequisite: true)
        }
        await policy.resolveHosts(of: references)
        // As the run checks them: the host of each reference's cache key (lower case, escapes decoded)
        let checked = try texts.map { text in
            let key = try #require(URL.cacheKeyText(ofAbsoluteString: text))
            return try #require(URL(string: key))
        }
        let asked = try checked.map { try #require($0.host) }
        #expect(Set(calls.value) == Set(asked))
        #expect(calls.value.count == Set(asked).count)
        #expect(asked.contains("cdn.example.com") && asked.contains("example.test"))
        // The checks of the references look nothing up again
        for url in checked {
            #expect(policy.allows(url, fromPublicAddress: true))
        }
        #expect(calls.value.count == Set(asked).count)
    }
}
