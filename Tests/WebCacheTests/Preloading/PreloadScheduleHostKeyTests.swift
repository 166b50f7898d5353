import Foundation
import HTTPCore
import Testing

@testable import WebCache

/// The host key read from a URL's text is the one Foundation's host and port give.
@Suite struct PreloadScheduleHostKeyTests {
    @Test(arguments: [
        "http://origin.test/a.png", "https://origin.test", "http://127.0.0.1:48987/tiny/1",
        "https://a-b.c9.test:8443?q", "http://origin.test:80/", "https://origin.test:443#f",
        "http://origin.test:00080/x", "http://Origin.Test/x",
        "http://user:pw@origin.test/x", "http://[::1]:8080/x", "http://origin.test:/x", "http://xn--bcher-kva.test/",
        "ftp://origin.test/x", "http://origin.test:123456/x", "http://origin_test/x", "HTTP://origin.test/x",
        "http://origin.test./x", "http://%6Frigin.test/x",
    ])
    func hostKeyIsFoundationsHostAndPort(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(PreloadSchedule.hostKey(url) == "\(url.host ?? ""):\(url.effectivePort ?? 0)")
    }

    @Test func randomPlainURLsKeyAsFoundationReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let hostBytes = Array("abcxyz019.-".utf8)
        for _ in 0..<500 {
            let host = String(decoding: (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                hostBytes.randomElement(using: &generator)!
            }, as: UTF8.self)
            let port = Bool.random(using: &generator)
                ? ":\(Int.random(in: 0...99_999, using: &generator))" : ""
            let scheme = Bool.random(using: &generator) ? "http" : "https"
            let tail = ["", "/", "/p?q", "?q", "#f"].randomElement(using: &generator)!
            guard let url = URL(string: "\(scheme)://\(host)\(port)\(tail)") else { continue }
            #expect(PreloadSchedule.hostKey(url) == "\(url.host ?? ""):\(url.effectivePort ?? 0)", "\(url)")
        }
    }
}
