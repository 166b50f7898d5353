import Foundation
import Testing

@testable import Archive

/// HAR files read an entry at a time: the entries array is found past whatever comes before it,
/// every element is cut out whole wherever the reads split it, and a bad element or a cut-off file
/// is reported by its entry while what came before stands.
struct HARReaderTests {
    /// An entry whose strings hold everything that could mislead a structure walk.
    static func entry(_ number: Int, text: String = #"a \"quoted\" {brace} [bracket], comma \\ and \u00e9"#) -> String {
        """
        {"startedDateTime": "2026-11-01T10:00:0\(number).000Z", "time": 1,
         "request": {"method": "GET", "url": "https://example.com/\(number)", "headers": []},
         "response": {"status": 200, "statusText": "OK", "headers": [{"name": "X-N", "value": "\(number)"}],
                      "content": {"size": 10, "mimeType": "text/plain", "text": "\(text)"}}}
        """
    }

    static let file = """
        {"log": {"version": "1.2", "creator": {"name": "a \\"log\\": {\\"entries\\": [", "version": "1"},
                 "pages": [{"id": "p", "title": "entries ]"}],
                 "entries": [\(entry(0)) , \(entry(1)),\(entry(2))]},
         "after": [1, 2, 3]}
        """

    /// Everything the reader returns, as entries or the indexes of the failures.
    static func readAll(_ text: String, readSize: Int) async throws -> [Result<HAREntry, ArchiveError>] {
        let reader = HARReader(source: DataByteSource(Data(text.utf8)), readSize: readSize)
        var results: [Result<HAREntry, ArchiveError>] = []
        while let (index, result) = try await reader.next() {
            #expect(index == results.count)
            results.append(result)
        }
        return results
    }

    @Test func everyEntryIsReadWhereverTheReadsSplitTheFile() async throws {
        let whole = try JSONDecoder().decode(
            [String: [String: [HAREntry]]].self,
            from: Data(#"{"log": {"entries": [\#(Self.entry(0)), \#(Self.entry(1)), \#(Self.entry(2))]}}"#.utf8))
        let expected = try #require(whole["log"]?["entries"])
        #expect(expected[1].response.content.text == #"a "quoted" {brace} [bracket], comma \ and é"#)
        for readSize in [1, 2, 3, 7, 64, 1 << 20] {
            let results = try await Self.readAll(Self.file, readSize: readSize)
            #expect(try results.map { try $0.get() } == expected, "read \(readSize) bytes at a time")
        }
    }

    @Test func anElementThatIsNotAnEntryIsReportedAndTheOthersRead() async throws {
        let text = #"{"log": {"entries": [\#(Self.entry(0)), 42, {"time": 1}, \#(Self.entry(3))]}}"#
        let results = try await Self.readAll(text, readSize: 5)
        #expect(results.count == 4)
        #expect((try? results[0].get()) != nil)
        #expect((try? results[3].get().request.url) == "https://example.com/3")
        guard case .failure(let notAnObject) = results[1], case .failure(let incomplete) = results[2] else {
            Issue.record("\(results)")
            return
        }
        #expect(notAnObject.message(file: "x.har") == "x.har#entry 1: The entry is not a valid HAR entry.")
        #expect(incomplete.message(file: "x.har") == "x.har#entry 2: The entry has no 'startedDateTime'.")
    }

    @Test func aMemberThatIsNullOrOfAnotherTypeIsNamed() async throws {
        let null = Self.entry(0).replacingOccurrences(of: #""url": "https://example.com/0""#, with: #""url": null"#)
        let number = Self.entry(1).replacingOccurrences(of: #""status": 200"#, with: #""status": "200""#)
        let results = try await Self.readAll(#"{"log": {"entries": [\#(null), \#(number)]}}"#, readSize: 64)
        guard results.count == 2, case .failure(let isNull) = results[0], case .failure(let mistyped) = results[1]
        else {
            Issue.record("\(results)")
            return
        }
        #expect(isNull.message(file: "x.har") == "x.har#entry 0: The entry's 'request.url' is null.")
        #expect(mistyped.message(file: "x.har")
            == "x.har#entry 1: The entry's 'response.status' is not of the type HAR 1.2 gives it.")
    }

    @Test func aFileCutInsideAnEntryKeepsTheEntriesBeforeIt() async throws {
        let text = #"{"log": {"entries": [\#(Self.entry(0)), \#(Self.entry(1))"#
        let cut = String(text.dropLast(40))
        let reader = HARReader(source: DataByteSource(Data(cut.utf8)), readSize: 16)
        let first = try await reader.next()
        #expect(first?.index == 0)
        #expect((try? first?.entry.get())?.request.url == "https://example.com/0")
        let error = await #expect(throws: ArchiveError.self) { try await reader.next() }
        #expect(error?.message(file: "x.har") == "x.har#entry 1: The file ends inside this entry.")
    }

    @Test(arguments: [
        (#"{"not": "a har"}"#, "The file has no log.entries array, so it is not a HAR file."),
        (#"{"x": {"log": {"entries": []}}}"#, "The file has no log.entries array, so it is not a HAR file."),
        (#"[{"log": {"entries": []}}]"#, "The file is not a JSON object, so it is not a HAR file."),
        ("", "The file is not a JSON object, so it is not a HAR file."),
        (#"{"log": {"entries": ["#, "The file ends inside the log.entries array, after 0 entries."),
    ])
    func whatIsNotAHARFileIsRefusedWithTheReason(text: String, reason: String) async throws {
        let error = await #expect(throws: ArchiveError.self) { try await Self.readAll(text, readSize: 4) }
        #expect(error?.reason == reason)
    }

    @Test(arguments: [1, 16, 1 << 20])
    func aStrayClosingBraceInTheEntriesIsReportedOnceAndEndsTheFile(readSize: Int) async throws {
        let text = #"{"log": {"entries": [\#(Self.entry(0)), \#(Self.entry(1))}]}, "after": 1}"#
        let reader = HARReader(source: DataByteSource(Data(text.utf8)), readSize: readSize)
        var urls: [String] = []
        var errors: [String] = []
        var ended = false

        // A bound rather than `while true`: a reader that makes no progress fails the test instead of hanging.
        for _ in 0..<10 {
            do {
                guard let (_, result) = try await reader.next() else {
                    ended = true
                    break
                }
                urls.append(try result.get().request.url)
            } catch let error as ArchiveError {
                errors.append(error.message(file: "x.har"))
            }
        }

        #expect(ended)
        #expect(urls == ["https://example.com/0", "https://example.com/1"])
        #expect(errors == [
            "x.har#entry 2: The file is damaged here: a '}' stands where an entry or the end of log.entries should."
        ])
    }

    @Test func anEmptyEntriesArrayEndsAtOnce() async throws {
        #expect(try await Self.readAll(#"{"log": {"entries": [ ]}}"#, readSize: 3).isEmpty)
    }
}
