import Testing

@testable import HTTPCore

/// Which URLs load Foundation's host-name processing in the executable: those whose host
/// Foundation's parser converts or refuses, found by comparing it with FoundationEssentials' alone.
@Suite struct InternationalNamesTests {
    @Test(arguments: [
        "http://bücher.test/x", "https://日本.jp/", "http://exa mple.test/", "http://a<b.test/", "http://a|b.test/",
        "http://a\tb.test/", "http://a^b.test/", "http://a\"b.test/", "http://a`b.test/", "http://a{b.test/",
        "http://%/", "http://a%/", "http://ＡＢＣ.test/",
    ])
    func aURLWhoseHostFoundationProcessesNeedsIt(_ url: String) {
        #expect(InternationalNames.needsProcessing(url: url.utf8))
    }

    @Test(arguments: [
        "http://a.test/", "http://exa%20mple.test/", "http://b%C3%BCcher.test/", "http://[::1]:8080/",
        "http://a_b.test/", "http://user:pw@a.test/", "http://a.test/a%20b|c d", "/relative path",
        "http://xn--bcher-kva.example/", "http://a.test/ä", "http://a.test/?q=//ü", "/path?q=//ü",
    ])
    func aURLWhoseHostBothParsersReadAlikeDoesNot(_ url: String) {
        #expect(!InternationalNames.needsProcessing(url: url.utf8))
    }
}
