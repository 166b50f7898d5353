import Foundation
import Testing

@testable import Sessions

/// Page references resolved against the instance URL.
struct InstanceURLTests {
    static let resolved: [(String, String, String)] = [
        ("https://example.com", "nav/home?x=1", "https://example.com/nav/home?x=1"),
        ("https://example.com/", "/nav/home", "https://example.com/nav/home"),
        ("https://example.com/portal", "nav/home", "https://example.com/portal/nav/home"),
        ("https://example.com/portal/", "../top", "https://example.com/top"),
        ("https://example.com/portal", "/root", "https://example.com/root"),
        ("https://example.com/portal", "?q=1", "https://example.com/portal/?q=1"),
        ("https://example.com", "https://other.example.org/page", "https://other.example.org/page"),
        ("http://127.0.0.1:8080", "  a/b  ", "http://127.0.0.1:8080/a/b"),
        ("https://example.com", "//cdn.example.com/x.js", "https://cdn.example.com/x.js"),
    ]

    @Test(arguments: resolved)
    func resolves(base: String, reference: String, expected: String) throws {
        let url = try InstanceURL.resolve(reference, against: URL(string: base)!)
        #expect(url.absoluteString == expected)
    }

    @Test(arguments: [
        ("", "empty"),
        ("   ", "empty"),
        ("nav home", "\"nav home\""),
        ("a\tb", "control characters"),
        ("mailto:someone@example.com", "\"mailto\""),
        ("javascript:alert(1)", "\"javascript\""),
        ("ftp://example.com/file", "\"ftp\""),
        ("http://", "without a host"),
    ])
    func rejectsUnusableReferences(reference: String, mentioned: String) {
        let error = #expect(throws: InstanceURL.Error.self) {
            try InstanceURL.resolve(reference, against: URL(string: "https://example.com/")!)
        }
        #expect(error?.message.contains(mentioned) == true, "\(error?.message ?? "")")
    }

    @Test(arguments: ["file:///tmp/x", "example.com", "https://example.com/?q=1"])
    func rejectsUnusableBases(base: String) {
        let error = #expect(throws: InstanceURL.Error.self) {
            try InstanceURL.resolve("nav", against: URL(string: base)!)
        }
        #expect(error?.message.contains(base) == true)
    }
}
