import Foundation
import Testing

@testable import HTTPCore

/// HTTPCore's replacements for the parts of Foundation that FoundationEssentials lacks give what
/// Foundation gives: each is compared with Foundation itself, which the tests link.
@Suite struct FoundationParityTests {
    /// Texts with ASCII and Unicode spaces, line breaks and marks at their ends.
    static let texts = [
        "", " ", "a", " a ", "\t a b \n", "\u{A0}a\u{2003}", "\u{85}a\u{2028}", "\u{2029}a\u{0B}\u{0C}\r",
        "\u{1680}x\u{3000}", "\u{200B}a\u{200B}", " \u{301}a", "[::1]", "[[a]]", "+-1-+", "\"'q'\"", "é ",
        "\u{FEFF}a\u{FEFF}", "a\u{202F}", "\u{205F}\u{180E}a",
    ]

    @Test(arguments: texts)
    func trimmingMatchesFoundationsCharacterSets(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(Substring(text).trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        for set in ["[]", "+-", "\"'", " \t\n\r\u{0C}"] {
            #expect(text.trimmingScalars(in: set) == text.trimmingCharacters(in: CharacterSet(charactersIn: set)))
        }
    }

    @Test(arguments: [
        "", "a b", "/tmp/store.sqlite", "/a b/ü ß/日本.sqlite", "x?y#z%", "a\nb\tc", "é\u{301}", "😀",
        "!$&'()*+,;=:@/-._~",
        "Accept-Encoding\ngzip\nUser-Agent\nx",
    ])
    func percentEncodingMatchesFoundation(_ text: String) {
        #expect(text.percentEncoded(allowing: \.isURLPathAllowed)
            == text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed))
        #expect(text.percentEncoded(allowing: \.isASCIIAlphanumeric)
            == text.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let encoded = text.percentEncoded(allowing: \.isASCIIAlphanumeric)
        #expect(encoded.percentDecoded == encoded.removingPercentEncoding)
    }

    @Test(arguments: ["a%41", "%", "%4", "%zz", "a%20b", "%C3%BC", "%C3", "%FF%FE", "%e6%97%a5", "plain", ""])
    func percentDecodingMatchesFoundation(_ text: String) {
        #expect(text.percentDecoded == text.removingPercentEncoding)
    }

    @Test(arguments: [0.0, 0.04, 0.05, 0.15, 0.25, 1.005, 2.675, 12.3456, -0.05, 1e9 + 0.125, 123456.789])
    func printfMatchesStringFormat(_ number: Double) {
        for format in ["%.1f", "%.2f", "%.3f", "%.2fs.\n"] {
            #expect(String(printf: format, number) == String(format: format, number))
        }
        #expect(String(printf: "%04d-%02d.%06dZ", 7, 3, 12) == String(format: "%04d-%02d.%06dZ", 7, 3, 12))
    }

    // (Foundation's deletingLastPathComponent crashes on a relative path of one character.)
    @Test(arguments: ["", "/", "ab", "/a", "/a/", "a/b", "/a/b/c", "/a//b///", "//a", "store.sqlite", "./s.sqlite"])
    func pathsMatchNSString(_ path: String) {
        #expect(FilePathText.deletingLastComponent(of: path) == (path as NSString).deletingLastPathComponent)
        for component in ["", "webcache", "store.sqlite", "/x"] {
            #expect(FilePathText.appending(component, to: path) == (path as NSString).appendingPathComponent(component))
        }
    }

    @Test func theTemporaryFolderIsNSTemporaryDirectory() {
        #expect(FilePathText.temporaryFolder == NSTemporaryDirectory())
    }

    @Test(arguments: [
        "see http://user:secret@a.test/x", "//a@b //c d@e //f/g@h", "x //u:p@ //\u{A0}@ //\u{85}@ //\u{0B}@",
        "no credentials", "a//@b", "///@", "//@//x@y", "http://[::1]@a?b@c#d@e",
    ])
    func credentialsAreHiddenAsTheRegularExpressionHidThem(_ text: String) {
        let expected = text.replacingOccurrences(of: "//[^/@?#\\s]*@", with: "//***@", options: .regularExpression)
        #expect(MessageText.redactingCredentials(text) == expected)
    }
}
