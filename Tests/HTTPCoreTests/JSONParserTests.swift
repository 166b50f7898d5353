import Foundation
import Testing

@testable import HTTPCore

@Suite struct JSONParserTests {
    @Test(arguments: [
        (#"{"a":[1,2.5,-3e2,true,false,null],"b":"x\"y\\z\n\u00e9\ud83d\ude00"}"#,
         JSONValue.object(["a": [1, 2.5, -300, true, false, .null], "b": "x\"y\\z\né😀"])),
        (#" [ ] "#, JSONValue.array([])),
        (#"{}"#, JSONValue.object([:])),
        (#""\u0001\t""#, JSONValue.string("\u{01}\t")),
    ])
    func parsesAndWritesBack(text: String, expected: JSONValue) throws {
        let parsed = try JSONValue.parse(Data(text.utf8))
        #expect(parsed == expected)
        #expect(try JSONValue.parse(parsed.serialized()) == expected)
    }

    @Test func anIntegerIsReadAndWrittenExactly() throws {
        // 2^53 + 1, which no Double holds, and the ends of Int64.
        for text in ["9007199254740993", "-9223372036854775808", "9223372036854775807"] {
            let parsed = try JSONValue.parse(Data(text.utf8))
            #expect(parsed == .integer(Int64(text)!))
            #expect(String(decoding: parsed.serialized(), as: UTF8.self) == text)
        }
        #expect(try JSONValue.parse(Data("9007199254740993".utf8)).intValue == 9_007_199_254_740_993)
    }

    @Test func numbersCompareByValueHoweverTheyAreWritten() throws {
        let whole = try JSONValue.parse(Data("2".utf8))
        let written = try JSONValue.parse(Data("2.0".utf8))
        #expect(whole == .integer(2) && written == .number(2))
        #expect(whole == written && Set([whole, written]).count == 1)
        #expect(try JSONValue.parse(Data("2.5".utf8)) != whole)
        // Past Int64, a whole number is a Double.
        #expect(try JSONValue.parse(Data("18446744073709551616".utf8)) == .number(18_446_744_073_709_551_616))
        #expect(try JSONValue.parse(Data("9007199254740993".utf8)).doubleValue == 9_007_199_254_740_992)
    }

    @Test(arguments: [#"{"a":}"#, #"[1,]"#, #""open"#, "tru", #"{"a":1} x"#, #""\x""#, ""])
    func refusesWhatIsNotJSON(text: String) {
        #expect(throws: (any Error).self) { try JSONValue.parse(Data(text.utf8)) }
    }
}
