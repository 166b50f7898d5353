import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// The text stored for a response's header fields: written into a string of its final size, it is
/// the same text as one grown field by field, and reads back as the fields it was written from.
@Suite struct HeaderCodingTests {
    /// The text as it was built before: four appends per field.
    private func referenceText(_ headers: HTTPHeaders) -> String {
        var text = ""
        for field in headers {
            text += field.name
            text += ": "
            text += field.value
            text += "\r\n"
        }
        return text
    }

    private func encoded(_ headers: HTTPHeaders) -> String? {
        if case .success(let text) = HeaderCoding.encode(headers) { return text }
        return nil
    }

    private func decoded(_ text: String) -> HTTPHeaders {
        var text = text
        return text.withUTF8 { HeaderCoding.decode(bytes: $0) }
    }

    @Test
    func writesEveryFieldInOrderAsTheAppendsDid() {
        let headers = HTTPHeaders([
            HTTPField(name: "Content-Type", value: "text/plain"), HTTPField(name: "X-Empty", value: ""),
            HTTPField(name: "Set-Twice", value: "a"), HTTPField(name: "Set-Twice", value: "b"),
            HTTPField(name: "X-Été", value: "café ☕︎"), HTTPField(name: "Cache-Control", value: "max-age=86400"),
        ])
        #expect(encoded(headers) == referenceText(headers))
        #expect(encoded(headers) == "Content-Type: text/plain\r\nX-Empty: \r\nSet-Twice: a\r\nSet-Twice: b\r\n"
            + "X-Été: café ☕︎\r\nCache-Control: max-age=86400\r\n")
        #expect(decoded(encoded(headers) ?? "") == headers)
        #expect(encoded(HTTPHeaders()) == "")
    }

    @Test
    func agreesWithTheAppendsOnRandomFields() {
        var generator = SeededGenerator(seed: 41)
        let pieces = ["a", "Z", "-", " ", "\t", "=", ";", "é", "☕︎", "😀", "0", "max-age"]
        func text(upTo count: Int) -> String {
            (0..<Int.random(in: 0...count, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined()
        }
        for _ in 0..<2_000 {
            let fields = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                HTTPField(name: "N" + text(upTo: 4), value: text(upTo: 40))
            }
            let headers = HTTPHeaders(fields)
            let written = encoded(headers)
            #expect(written == referenceText(headers))
            #expect(written?.utf8.count == referenceText(headers).utf8.count)
        }
    }

    @Test(arguments: ["", "Bad:Name", "Bad\rName", "Bad\nName"])
    func refusesANameThatCannotBeWritten(name: String) {
        let headers = HTTPHeaders([HTTPField(name: "Fine", value: "x"), HTTPField(name: name, value: "v")])
        guard case .failure(let invalid) = HeaderCoding.encode(headers) else {
            Issue.record("\(name.debugDescription) was written")
            return
        }
        #expect(invalid.name == name)
    }

    @Test(arguments: ["a\rb", "a\nb", "\r\n"])
    func refusesAValueWithALineBreak(value: String) {
        let headers = HTTPHeaders([HTTPField(name: "X-Broken", value: value)])
        guard case .failure(let invalid) = HeaderCoding.encode(headers) else {
            Issue.record("\(value.debugDescription) was written")
            return
        }
        #expect(invalid.name == "X-Broken")
    }
}
