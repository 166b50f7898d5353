import Testing

@testable import Discovery

/// The tokenizer names the elements the scanner acts on by a tag name's packed bytes: each name
/// must come out as its own case, and no other name as one of them.
@Suite struct ElementNameTests {
    static func element(_ name: String) -> ElementName {
        Array(name.utf8).withUnsafeBufferPointer { ElementName($0) }
    }

    @Test func everyCaseIsNamedByItsOwnName() {
        for element in ElementName.allCases where element != .other {
            #expect(Self.element("\(element)") == element, "\(element)")
        }
    }

    @Test func otherNamesAreOther() {
        for name in ["p", "div", "im", "imgs", "IMG", "scripts", "plaintex", "plaintexts", "templates", "x-img",
                     "textareas", "noscript\u{0}", "a\u{0}", "\u{0}a"]
        {
            #expect(Self.element(name) == .other, "\(name)")
        }
    }

    @Test func tagsOfEveryCaseAreTokenizedAsThatCase() {
        let filter = AttributeNames(["src"])
        for element in ElementName.allCases where element != .other {
            var tokenizer = HTMLTokenizer(attributeFilter: filter)
            let html = Array("<\(String(describing: element).uppercased()) src=x></\(element)>".utf8)
            var tokens: [HTMLTokenizer.Token] = []
            html.withUnsafeBufferPointer { bytes in
                var index = 0
                while let token = tokenizer.nextToken(in: bytes, at: &index) { tokens.append(token) }
            }
            guard tokens.count == 2, case .startTag(let tag) = tokens[0], case .endTag(let name, let end) = tokens[1]
            else {
                Issue.record("\(element): \(tokens)")
                continue
            }
            #expect(tag.element == element && tag.name == "\(element)" && tag[.src] == "x")
            #expect(end == element && name == "\(element)")
        }
    }
}
