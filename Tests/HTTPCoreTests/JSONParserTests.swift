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

    @Test(arguments: [#"{"a":}"#, #"[1,]"#, #""open"#, "tru", #"{"a":1} x"#, #""\x""#, ""])
    func refusesWhatIsNotJSON(text: String) {
        #expect(throws: (any Error).self) { try JSONValue.parse(Data(text.utf8)) }
    }
}
