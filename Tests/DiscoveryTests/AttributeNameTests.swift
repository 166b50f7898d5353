import Testing

@testable import Discovery

/// An ``AttributeNames/Name``, packed once where it is declared, finds the kept attribute of its
/// name and no other.
@Suite struct AttributeNameTests {
    @Test func everyKeptNameFindsItsOwnValue() {
        let names = HTMLScanner.attributeFilter.sorted()
        let html = "<p " + names.map { "\($0.uppercased())=\"v-\($0)\"" }.joined(separator: " ") + " other=x>"
        var tokenizer = HTMLTokenizer(attributeFilter: HTMLScanner.attributeNames)
        let bytes = Array(html.utf8)
        var index = 0
        let token = bytes.withUnsafeBufferPointer { tokenizer.nextToken(in: $0, at: &index) }
        guard case .startTag(let tag)? = token else {
            Issue.record("no start tag: \(String(describing: token))")
            return
        }
        for name in names {
            #expect(tag[AttributeNames.Name(name)] == "v-\(name)", "\(name)")
        }
        #expect(tag[AttributeNames.Name("other")] == nil)
        #expect(tag[AttributeNames.Name("sr")] == nil && tag[AttributeNames.Name("srcsetx")] == nil)
    }
}
