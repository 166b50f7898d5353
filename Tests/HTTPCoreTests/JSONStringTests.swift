import Foundation
import HTTPCore
import Testing

/// JSON string escaping, which every JSON webcache writes by hand goes through.
struct JSONStringTests {
    @Test func escapingIsTheJSONOfTheText() throws {
        let text = "a\"b\\c\n\r\t\u{0}\u{1F}é/"
        var escaped = Data()
        JSONString.appendEscaped(text, to: &escaped)
        #expect(String(decoding: escaped, as: UTF8.self) == #"a\"b\\c\n\r\t\u0000\u001fé/"#)
        let decoded = try JSONDecoder().decode(String.self, from: Data(("\"" + String(decoding: escaped, as: UTF8.self) + "\"").utf8))
        #expect(decoded == text)
    }

    @Test func everyControlCharacterAndLongRunsReadBackAsTheyWere() throws {
        let text = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
            + String(repeating: "plain text é 漢字 🙂 ", count: 500) + "\"\\"
        let quoted = JSONString.quoted(text)
        #expect(quoted.hasPrefix("\"") && quoted.hasSuffix("\""))
        #expect(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)) == text)
        var bytes: [UInt8] = []
        JSONString.appendEscaped(text, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == String(quoted.dropFirst().dropLast()))
    }
}
