import Foundation
import Testing
import WebCacheTestSupport

@testable import WebCacheCLI

/// The URL list read line by line: the same entries and problems as the whole file classified at
/// once, whatever the lines' lengths and where the reads end.
@Suite(.timeLimit(.minutes(5)))
struct URLListStreamTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// Every line the stream yields, as entries and problems.
    private func drain(_ data: Data) throws -> (entries: [(line: Int, text: String)], problems: [URLListFile.Problem]) {
        let path = try folder.write(data, to: "urls-\(UUID().uuidString).txt")
        let stream = try URLListStream(path: path)
        var entries: [(line: Int, text: String)] = []
        var problems: [URLListFile.Problem] = []
        while let line = stream.next() {
            switch line {
            case .entry(let entry): entries.append(entry)
            case .problem(let problem): problems.append(problem)
            }
        }
        return (entries, problems.map { URLListFile.Problem(file: "urls.txt", line: $0.line, reason: $0.reason) })
    }

    @Test(arguments: [1, 2, 3, 4])
    func yieldsWhatTheWholeFileClassifiedAtOnceHolds(seed: UInt64) throws {
        // Given a list of many kinds of lines, longer than several reads, some lines longer than the limit
        var generator = SeededGenerator(seed: seed)
        var data = Data(seed == 1 ? URLListFile.byteOrderMark : [])
        let kinds: [(inout SeededGenerator) -> Data] = [
            { Data("https://a.test/page-\($0.next() % 1000)\n".utf8) },
            { Data("  https://a.test/x#frag   # a comment\r\n".utf8) + Data("relative/\($0.next() % 50).html\n".utf8) },
            { _ in Data("# only a comment\n\n   \n".utf8) },
            { _ in Data("https://a.test/a b\n".utf8) },
            { _ in Data([0x68, 0x74, 0xFF, 0xFE, 0x0A]) },
            { Data(String(repeating: "y", count: Int($0.next() % 3) * 70_000 + 8_190).utf8) + Data("\n".utf8) },
        ]
        // One line in a hundred is long: 8,190, 70,000 or 140,000 bytes.
        for _ in 0..<2_000 {
            let pick = Int(generator.next() % 100)
            data += kinds[pick == 0 ? kinds.count - 1 : pick % (kinds.count - 1)](&generator)
        }
        if seed == 2 { data += Data("https://a.test/no-newline-at-the-end".utf8) }
        if seed == 3 { data += Data(String(repeating: "z", count: 100_000).utf8) }
        #expect(data.count > 4 * 65_536)
        #expect(data.count < 8_000_000)

        // When
        let streamed = try drain(data)
        let whole = try URLListFile(data: data, name: "urls.txt")

        // Then
        #expect(streamed.entries.map(\.line) == whole.entries.map(\.line))
        #expect(streamed.entries.map(\.text) == whole.entries.map(\.text))
        #expect(streamed.problems == whole.problems)
        #expect(!whole.problems.isEmpty && !whole.entries.isEmpty)
    }

    @Test func refusesARegularFileWithANULByteAfterTheFirstRead() throws {
        var data = Data(String(repeating: "https://a.test/\n", count: 10_000).utf8)
        data.append(contentsOf: [0x00, 0x0A])
        let path = try folder.write(data, to: "late-nul.txt")
        let error = #expect(throws: CLIError.self) { try URLListStream(path: path) }
        #expect(error?.message == "The URL file '\(path)' is not a text file of URLs: it contains NUL bytes.")
    }

    /// A pipe delivers what was written so far: the byte order mark in two reads is still dropped.
    @Test func dropsAByteOrderMarkThatArrivesInTwoReads() throws {
        let path = folder.path("pipe")
        try #require(mkfifo(path, 0o600) == 0)
        // Opened for reading and writing, the pipe has a writer, so the stream's open does not wait.
        let writer = open(path, O_RDWR)
        try #require(writer >= 0)
        let first: [UInt8] = [0xEF]
        try #require(write(writer, first, 1) == 1)
        // The stream's first read, made as it opens, gets the one byte there is.
        let stream = try URLListStream(path: path)
        let rest = Array(URLListFile.byteOrderMark.dropFirst()) + Array("https://a.test/x\n".utf8)
        try #require(write(writer, rest, rest.count) == rest.count)
        close(writer)
        var lines: [String] = []
        while let line = stream.next() {
            switch line {
            case .entry(let entry): lines.append("\(entry.line) \(entry.text)")
            case .problem(let problem): lines.append("\(problem.line) problem: \(problem.reason)")
            }
        }
        #expect(lines == ["1 https://a.test/x"])
    }

    @Test func namesAFileThatCannotBeOpened() throws {
        let missing = folder.path("absent.txt")
        let error = #expect(throws: CLIError.self) { try URLListStream(path: missing) }
        #expect(error?.message == "The URL file '\(missing)' does not exist.")
        let directory = #expect(throws: CLIError.self) { try URLListStream(path: folder.url.path) }
        #expect(directory?.message == "The URL file '\(folder.url.path)' is a directory.")
    }
}
