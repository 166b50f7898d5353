import Foundation
import Testing
import WebCacheTestSupport

@testable import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The host check reads a name's bytes in one pass; on every host made of the characters that
/// matter to it (dots, digits, letters, name punctuation, and some that no name may hold), it says
/// what a check that splits the name into labels says.
struct HostCheckDifferentialTests {
    /// The reason a host that is an ASCII name (no brackets, no percent) is refused, found by
    /// splitting it into labels: the reference.
    static func reasonBySplitting(_ host: String) -> String? {
        func invalid(_ what: String) -> String {
            "has the host '\(MessageText.excerpt(host, limit: 80))', which is not \(what)"
        }
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        let isNameByte = { (byte: UInt8) in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
        guard labels.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(isNameByte) }) else {
            return invalid("a valid host name or IP address")
        }
        if let last = labels.last, last.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            var address = in_addr()
            guard inet_aton(labels.joined(separator: "."), &address) != 0 else { return invalid("a valid IPv4 address") }
        }
        return nil
    }

    @Test(arguments: [
        "", ".", "..", "a", "a.", "a..", ".a", "a..b", "a.b.", "a.b..", "example.test", "EXAMPLE.test.",
        "127.0.0.1", "127.0.0.1.", "127.1", "0x7f.1", "1.2.3.4.5", "256.0.0.1", "999", "1.", "a.1", "a-b_c~d",
        "a b", "a/b", "a:b", "a@b", "1.2.3.04", "4294967295", "4294967296", "x.y.z.123",
    ])
    func readsFixedHostsAsTheSplittingCheckDoes(host: String) {
        #expect(HTTPURLCheck.problem(withHost: host)?.reason == Self.reasonBySplitting(host), "\(host)")
    }

    @Test func readsRandomHostsAsTheSplittingCheckDoes() {
        var generator = SeededGenerator(seed: 17)
        let alphabet = Array("..0123456789aZ-_~ /:x")
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let host = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            #expect(HTTPURLCheck.problem(withHost: host)?.reason == Self.reasonBySplitting(host), "\(host)")
        }
    }
}
