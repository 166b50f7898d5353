import Foundation
import Testing

@testable import Sessions

/// RFC 6265 §5.2: parsing one `Set-Cookie` line.
struct SetCookieParsingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var section: String
        var line: String
        var name: String
        var value: String
        var check: @Sendable (SetCookie) -> Bool
        var testDescription: String { "\(section): \(line)" }
    }

    static let cases: [Case] = [
        Case(section: "§5.2 name-value", line: "SID=31d4d96e407aad42", name: "SID", value: "31d4d96e407aad42") {
            $0.path == nil && $0.domain == nil && !$0.isSecure
        },
        Case(section: "§5.2 whitespace trimmed", line: "  SID =  abc ; Path=/", name: "SID", value: "abc") {
            $0.path == "/"
        },
        Case(section: "§5.2 empty value", line: "empty=", name: "empty", value: "") { _ in true },
        Case(section: "§5.2 value keeps later =", line: "a=b=c", name: "a", value: "b=c") { _ in true },
        Case(section: "§5.2.1 Expires", line: "a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT", name: "a", value: "b") {
            $0.expires == Date(timeIntervalSince1970: 1_623_233_894)
        },
        Case(section: "§5.2.1 bad Expires ignored", line: "a=b; Expires=soon", name: "a", value: "b") {
            $0.expires == nil
        },
        Case(section: "§5.2.2 Max-Age", line: "a=b; Max-Age=3600", name: "a", value: "b") { $0.maxAge == 3600 },
        Case(section: "§5.2.2 negative Max-Age", line: "a=b; Max-Age=-1", name: "a", value: "b") { $0.maxAge == -1 },
        Case(section: "§5.2.2 bad Max-Age ignored", line: "a=b; Max-Age=1h", name: "a", value: "b") {
            $0.maxAge == nil
        },
        Case(section: "§5.2.3 leading dot dropped", line: "a=b; Domain=.Example.COM", name: "a", value: "b") {
            $0.domain == "example.com"
        },
        Case(section: "§5.2.3 empty Domain ignored", line: "a=b; Domain=", name: "a", value: "b") {
            $0.domain == nil
        },
        Case(section: "§5.2.4 relative Path means default", line: "a=b; Path=docs", name: "a", value: "b") {
            $0.path == nil
        },
        Case(section: "§5.2.5 Secure, §5.2.6 HttpOnly", line: "a=b; secure; HTTPONLY", name: "a", value: "b") {
            $0.isSecure && $0.isHTTPOnly
        },
        Case(section: "6265bis §5.6.7 SameSite", line: "a=b; SameSite=lax", name: "a", value: "b") {
            $0.sameSite == .lax
        },
        Case(section: "6265bis §5.6.7 unknown SameSite", line: "a=b; SameSite=Maybe", name: "a", value: "b") {
            $0.sameSite == nil
        },
        Case(section: "§5.2 last attribute wins", line: "a=b; Path=/x; Path=/y", name: "a", value: "b") {
            $0.path == "/y"
        },
        Case(section: "§5.2 unknown attribute ignored", line: "a=b; Priority=High; ;", name: "a", value: "b") { _ in
            true
        },
    ]

    @Test(arguments: cases)
    func parses(_ testCase: Case) throws {
        let cookie = try SetCookie.parse(testCase.line).get()
        #expect(cookie.name == testCase.name)
        #expect(cookie.value == testCase.value)
        #expect(testCase.check(cookie))
    }

    @Test(arguments: [
        ("novalue", SetCookie.Malformation.missingEquals),  // §5.2 step 2: no "="
        ("=value", .emptyName),  // §5.2 step 5: empty name
        ("   ; Path=/", .missingEquals),
        ("a=b\u{0}c", .forbiddenCharacter),  // 6265bis §5.6: control character
        ("big=" + String(repeating: "x", count: 4094), .tooLarge),  // 6265bis §5.6: 4097 bytes
    ])
    func rejectsMalformedLines(line: String, malformation: SetCookie.Malformation) {
        #expect(SetCookie.parse(line) == .failure(malformation))
    }

    @Test func acceptsCookieOfExactlyTheSizeLimit() throws {
        let cookie = try SetCookie.parse("big=" + String(repeating: "x", count: 4093)).get()
        #expect(cookie.name.utf8.count + cookie.value.utf8.count == 4096)
    }
}
