import Foundation
import Testing
import WebCacheTestSupport

@testable import Archive

/// HAR files written an entry at a time: long body texts, which the writer escapes itself, read back
/// as they were, by the streaming reader and by a JSON parser of the whole file.
struct HARWriterTests {
    private static func entry(_ number: Int, text: String, mimeType: String = "text/plain") -> HAREntry {
        HAREntry(
            startedDateTime: Date(timeIntervalSince1970: 1_764_000_000 + Double(number)), time: 1,
            request: HAREntry.Request(method: "GET", url: "https://example.com/\(number)", headers: []),
            response: HAREntry.Response(
                status: 200, statusText: "OK", headers: [HAREntry.NameValue(name: "X-N", value: "\(number)")],
                content: HAREntry.Content(body: Data(text.utf8), mimeType: mimeType)),
            timings: nil)
    }

    @Test func longTextsAreEscapedByTheWriterAndReadBackAsTheyWere() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Every control character, both characters JSON escapes, non-ASCII and a placeholder look-alike.
        let awkward = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
            + #"" \ \" \\ / é 漢字 🙂 webcache-har-text-"#
        var random = SeededGenerator(seed: 5)
        let texts = [
            String(repeating: awkward, count: 300),
            String(repeating: "plain ", count: 2_000),
            awkward,  // short: written by the encoder
            (0..<20_000).map { _ in awkward.randomElement(using: &random)! }.map(String.init).joined(),
        ]
        var entries = texts.enumerated().map { Self.entry($0.offset, text: $0.element) }
        entries.append(Self.entry(9, text: "", mimeType: "image/png"))
        entries[4].response.content = HAREntry.Content(body: Data((0..<30_000).map { UInt8($0 % 251) }), mimeType: "image/png")
        let path = folder.path("log.har")
        let writer = try HARWriter(path: path, creator: "webcache", version: "test")
        for entry in entries { try writer.write(entry) }
        try writer.close()

        let reader = try HARReader(path: path)
        var read: [HAREntry] = []
        while let (_, result) = try await reader.next() { read.append(try result.get()) }
        #expect(read == entries)
        #expect(try read[4].response.content.bytes() == Data((0..<30_000).map { UInt8($0 % 251) }))
        let whole = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let logged = ((whole as? [String: Any])?["log"] as? [String: Any])?["entries"] as? [[String: Any]]
        #expect(logged?.count == entries.count)
        let firstText = ((logged?.first?["response"] as? [String: Any])?["content"] as? [String: Any])?["text"]
        #expect(firstText as? String == texts[0])
    }
}
