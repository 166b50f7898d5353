import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import Discovery

/// Most references are resolved on bytes (RFC 3986 §5.2, or kept as written) rather than through
/// Foundation, and kept as text: for each base and reference the text must be what the scanners
/// gave before, when they made a Foundation `URL` of every reference (``LegacyResolution``), and
/// must parse back to that same `URL`.
@Suite struct URLResolutionTests {
    static let bases = [
        "https://example.com/dir/page.html", "https://example.com/", "http://example.com:8080/a/b/c?x=1#frag",
        "https://user@example.com/dir/", "https://example.com/dir/page.html?q=/x/y", "https://example.com",
        "file:///srv/site/index.html", "https://example.com/a%20b/c.html", "HTTP://Example.COM/Dir/./x/../p",
        "https://[::1]:8443/a/b", "https://user:pw@example.com:444/d/e/", "http://127.0.0.1/?", "https://x.test/a/b/",
    ]

    static let references = [
        "a.png", "/img/b.png", "../up/x.gif", "../../../../x.gif", "./a/./b/../c.png", ".", "..", "./", "../",
        "a/..", "a/.", "?only=query", "?", "#frag", "", "img/a.png#part", "x?y=1&z=2#f", "a:b", "c/d:e.png",
        "//cdn.example.net/lib.js", "/", "//", "a//b", "/a/b/../../..", "%41%2e%2E/b", "%zz", "50%", "@x!$&'()*+,;=~",
        "a?b/../c", "/..", "/.", "...", "a/...", ".hidden/x", "https://other.test/y.css", "HTTP://Other.Test/Z",
        "https://o.test", "https://o.test?q", "https://o.test/a/../b/./c", "http://o.test:80/", "http://o.test:/x",
        "http://o.test:65536/", "http://o.test:123456/", "http:/x/y", "http:x/y", "https:", "http://", "http:///x",
        "http://a b/", "https://o.test#f", "///x", "////x", "//cdn.example.net", "//cdn.example.net?x", "//cdn:80/a",
        "//cdn:/a", "//[::1]/a", "http://[::1]:8080/a", "//u@cdn/a", "//u:p@cdn/a", "//cdn/./a/.", "//cdn/a/..",
        "//./a", "//../a", "//-/a", "//_/", "//a.b..c/", "//Ex.COM/A", "//é.test/a", "//a%41.test/", "http://a\\b/c",
        "\\\\cdn/a", "/a\\b", "a b.png", " a.png ", "\ta\n.png", "\u{0}a", "a\u{7F}", "é.png", "?q=é", "日本/語",
        "javascript:alert(1)", "JavaScript:x", "data:image/png;base64,AA", "mailto:a@b", "about:blank", "blob:x",
        "tel:1", "ftp://x.test/a", "ws://x.test/", "x-y+z.w:foo", "1a:b", ":", ":a", "a:", "#", "##", "?#", "#?",
        "a#b#c", "%", "%2", "%2G", "%%41", "[", "]", "a[1].png", "{x}", "a|b", "a^b", "a`b", "a\"b", "a<b>c",
        "http://o.test./", "http://1.2.3.4/", "http://x_y.test/", "https://o.test?a#b", "https://o.test:0099",
        "//o.test:0099/", "https://o.test/%7e%41", "https://o.test/a//b", "https://o.test/a/%2e%2e/b",
    ]

    @Test(arguments: bases)
    func edgeCasesResolveAsBefore(_ base: String) throws {
        let baseURL = try #require(URL(string: base))
        let prepared = URLCleaner.Base(baseURL)
        for reference in Self.references {
            for encoding in [TextEncoding.utf8, .windows1252] {
                try Self.expectSameResolution(reference, prepared, encoding)
            }
        }
    }

    @Test func randomReferencesResolveAsBefore() throws {
        var random = SeededGenerator(seed: 17)
        let bases = try Self.bases.map { URLCleaner.Base(try #require(URL(string: $0))) }
        for _ in 0..<40_000 {
            let reference = Self.randomReference(&random)
            let base = bases[Int.random(in: 0..<bases.count, using: &random)]
            try Self.expectSameResolution(reference, base, Bool.random(using: &random) ? .utf8 : .windows1252)
        }
    }

    /// The bit mask of the bytes a plain reference may hold (those a URL holds as they are after its
    /// host) names exactly the characters RFC 3986 allows there, byte by byte, non-ASCII bytes excluded.
    @Test func plainBytesAreTheURLCharacters() {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#@!$&'()*+,;=".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(URL.holdsAfterHost(byte) == allowed.contains(byte), "byte \(byte)")
        }
    }

    @Test func plainReferencesTakeTheBytePath() throws {
        let base = URLCleaner.Base(try #require(URL(string: "https://example.com/dir/page.html")))
        let plain = [
            "a.png", "/img/b.png", "../up/x.gif", "?q=1", "x%20y.png", "//cdn.example.net/a.js", "//cdn:8080",
            "http://other.test/a?b", "HTTPS://Other.Test", "#only", "",
        ]
        for reference in plain {
            #expect(URLCleaner.resolvePlainReference(reference, base: base) != nil, "\(reference)")
        }
        for reference in ["a:b", "é.png", "a b.png", "50%", "a\\b", "//", "//u@cdn/a", "//[::1]/", "http:x", "ftp://a/"] {
            #expect(URLCleaner.resolvePlainReference(reference, base: base) == nil, "\(reference)")
        }
        let file = URLCleaner.Base(try #require(URL(string: "file:///srv/index.html")))
        #expect(URLCleaner.resolvePlainReference("a.png", base: file) == nil)
    }

    // MARK: - Helpers

    /// Expects the text `reference` resolves to against `base` to be the `absoluteString` of the
    /// `URL` the earlier resolution gave, and to parse back to that `URL`.
    private static func expectSameResolution(
        _ reference: String, _ base: URLCleaner.Base, _ encoding: TextEncoding
    ) throws {
        let expected = LegacyResolution.resolve(reference, against: base, queryEncoding: encoding)
        let resolved = URLCleaner.resolve(reference, against: base, queryEncoding: encoding)
        #expect(resolved == expected?.absoluteString, "\(reference.debugDescription) against \(base.url)")
        if let resolved {
            let parsed = URL(string: resolved)
            #expect(parsed == expected && parsed?.absoluteString == resolved, "\(reference.debugDescription)")
        }
    }

    /// Pieces references are made of: path segments, dot segments, escapes good and bad, schemes,
    /// authorities, delimiters, and what a URL cannot hold as it is.
    private static let pieces = [
        "a", "b.png", "img", "x-y_z~", ".", "..", "...", "%2e", "%2E%2e", "%41", "%zz", "%", "%4", "/", "//", "?", "#",
        ":", "@", ";", "=", "&", "!", "$", "'", "(", ")", "*", "+", ",", " ", "\t", "\n", "\r", "\u{0}", "\u{1F}",
        "\u{7F}", "\\", "é", "日", "😀", "[", "]", "::1", "|", "^", "`", "{", "}", "<", ">", "\"", "http:", "https:",
        "HTTP:", "Https:", "javascript:", "data:", "mailto:", "ftp:", "x:", "http://", "https://", "//host", "//Host.Test",
        "host.test", "Ex.COM", ":80", ":8080", ":", ":99999", ":123456", "_", "-", "127.0.0.1", "[::1]", "u:p@", "q=1",
    ]

    private static func randomReference(_ random: inout SeededGenerator) -> String {
        var reference = ""
        for _ in 0..<Int.random(in: 0...8, using: &random) {
            reference += pieces[Int.random(in: 0..<pieces.count, using: &random)]
        }
        return reference
    }
}

/// The resolution the scanners used before references were kept as text: the byte path for plain
/// relative references, parsed into a `URL`, and Foundation for the rest; kept here, unchanged, as
/// the reference the new resolution is compared with.
private enum LegacyResolution {
    static func resolve(_ value: String, against base: URLCleaner.Base, queryEncoding: TextEncoding) -> URL? {
        if let origin = base.origin, let resolved = resolvePlainReference(value, origin: origin, base: base) {
            return resolved.isEmpty ? nil : URL(string: String(decoding: resolved, as: UTF8.self))
        }
        return URLCleaner.resolveWithFoundation(value, against: base.url, queryEncoding: queryEncoding)
    }

    static func resolvePlainReference(_ value: String, origin: [UInt8], base: URLCleaner.Base) -> [UInt8]? {
        let bytes = Array(value.utf8)
        var end = bytes.count
        var queryStart: Int?
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x80, plainBytes.contains(Unicode.Scalar(byte)) else {
                guard byte == UInt8(ascii: "%"), index + 2 < bytes.count, bytes[index + 1].isHexDigit,
                    bytes[index + 2].isHexDigit
                else { return nil }
                continue
            }
            if byte == UInt8(ascii: "#") {
                end = index
                break
            }
            if byte == UInt8(ascii: "?") {
                if queryStart == nil { queryStart = index }
            } else if byte == UInt8(ascii: ":"), queryStart == nil, !bytes[..<index].contains(UInt8(ascii: "/")) {
                return nil
            }
        }
        guard end > 0 else { return [] }
        if bytes.count >= 2 && bytes[0] == UInt8(ascii: "/") && bytes[1] == UInt8(ascii: "/") { return nil }
        let pathEnd = queryStart ?? end
        var result = origin
        if pathEnd == 0 {
            result += base.path
        } else if bytes[0] == UInt8(ascii: "/") {
            appendRemovingDotSegments(Array(bytes[0..<pathEnd]), to: &result)
        } else {
            appendRemovingDotSegments(base.directory + bytes[0..<pathEnd], to: &result)
        }
        result += bytes[pathEnd..<end]
        return result
    }

    private static func appendRemovingDotSegments(_ path: [UInt8], to output: inout [UInt8]) {
        let start = output.count
        var index = 0
        while index < path.count {
            var next = index + 1
            while next < path.count && path[next] != UInt8(ascii: "/") { next += 1 }
            let segment = path[(index + 1)..<next]
            if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) {
                if segment.count == 2, let slash = output[start...].lastIndex(of: UInt8(ascii: "/")) {
                    output.removeSubrange(slash...)
                }
                if next == path.count { output.append(UInt8(ascii: "/")) }
            } else {
                output += path[index..<next]
            }
            index = next
        }
        if output.count == start { output.append(UInt8(ascii: "/")) }
    }

    private static let plainBytes = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#@!$&'()*+,;=".unicodeScalars)
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}
