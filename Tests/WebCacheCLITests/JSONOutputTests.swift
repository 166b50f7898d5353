import Foundation
import Testing

@testable import WebCacheCLI

/// `JSONOutput.StreamedArray` writes what `JSONOutput.write` writes for the whole value, an element at
/// a time.
struct JSONOutputTests {
    private struct Item: Encodable {
        var url: String
        var count: Int
        var notes: [String]
        var nested: [String: [Int]]
    }

    private struct Document: Encodable {
        var items: [Item]
        var store: String
        var total: Int
    }

    @Test(arguments: [0, 1, 3, 700])
    func aStreamedArrayIsWrittenAsTheWholeObjectIs(count: Int) throws {
        // Given items with strings that JSON escapes, slashes, empty and nested collections
        let items = (0..<count).map { index in
            Item(
                url: "https://example.test/\(index)?q=\"a\\b\"\n\u{1}é",
                count: index, notes: index.isMultiple(of: 2) ? [] : ["one", "two"],
                nested: index == 1 ? ["a": [], "b": [1, 2]] : [:])
        }
        let document = Document(items: items, store: "/var/cache/web cache.sqlite", total: count)
        let whole = BufferedOutput()
        try JSONOutput.write(document, to: whole)
        // When
        let streamed = BufferedOutput()
        let writer = try JSONOutput.StreamedArray(key: "items", to: streamed)
        for item in items { try writer.append(item) }
        try writer.finish(then: [("store", document.store), ("total", document.total)])
        // Then
        #expect(streamed.text == whole.text)
        #expect(streamed.text.utf8.count > 60)
    }
}
