import ChildProcess
import Foundation
import Testing
import WebCacheTestSupport

@testable import WebCacheCLI

/// Classification of URL list lines: entries, comments, blanks, and problems as `FILE:LINE: reason`.
struct URLListFileTests {
    private func list(_ text: String) throws -> URLListFile {
        try URLListFile(data: Data(text.utf8), name: "urls.txt")
    }

    @Test func keepsURLsAndSkipsCommentsAndBlankLines() throws {
        let file = try list("""
            # pages to preload
            https://a.test/

               https://a.test/about   # the about page
            \t
            nav/home\r
            https://a.test/guide#install
            #https://a.test/commented-out
            """)
        #expect(file.entries.map(\.line) == [2, 4, 6, 7])
        #expect(file.entries.map(\.text) == [
            "https://a.test/", "https://a.test/about", "nav/home", "https://a.test/guide#install",
        ])
        #expect(file.problems.isEmpty)
    }

    @Test func aHashInsideAURLIsAFragmentNotAComment() throws {
        let file = try list("https://a.test/page#section-2\n")
        #expect(file.entries.map(\.text) == ["https://a.test/page#section-2"])
    }

    @Test(arguments: [
        ("https://a.test/a b\n", "urls.txt:1: 'https://a.test/a b' contains spaces or control characters."),
        ("ok\nhttps://a.test/\u{7}bell\n",
         "urls.txt:2: 'https://a.test/\\u{7}bell' contains spaces or control characters."),
        ("https://a.test/\u{7F}\n", "urls.txt:1: 'https://a.test/\\u{7f}' contains spaces or control characters."),
    ])
    func reportsLinesWithSpacesOrControlCharacters(text: String, problem: String) throws {
        let file = try list(text)
        #expect(file.problems.map(\.description) == [problem])
        #expect(file.entries.count == text.split(separator: "\n").count - 1)
    }

    @Test func reportsNonUTF8LinesAndGoesOn() throws {
        var data = Data("https://a.test/one\n".utf8)
        data.append(contentsOf: [0x68, 0x74, 0xFF, 0xFE, 0x0A])
        data.append(Data("https://a.test/three\n".utf8))
        let file = try URLListFile(data: data, name: "list.txt")
        #expect(file.problems.map(\.description) == ["list.txt:2: line is not valid UTF-8 text."])
        #expect(file.entries.map(\.line) == [1, 3])
    }

    @Test func refusesOverlongLines() throws {
        let long = "https://a.test/" + String(repeating: "x", count: URLListFile.maximumLineLength)
        let file = try list("https://a.test/\n\(long)\nhttps://b.test/\n")
        #expect(file.problems.count == 1)
        #expect(file.problems.first?.line == 2)
        #expect(file.problems.first?.description
            == "urls.txt:2: line is \(long.utf8.count) bytes long; the limit is \(URLListFile.maximumLineLength).")
        #expect(file.entries.map(\.text) == ["https://a.test/", "https://b.test/"])
    }

    @Test func aByteOrderMarkIsNotPartOfTheFirstLine() throws {
        let file = try list("\u{FEFF}https://a.test/\nhttps://b.test/\n")
        #expect(file.entries.map(\.text) == ["https://a.test/", "https://b.test/"])
        #expect(file.problems.isEmpty)
    }

    @Test func refusesAFileWithNULBytesWhole() {
        var data = Data("https://a.test/\n".utf8)
        data.append(contentsOf: [0x89, 0x50, 0x4E, 0x47, 0x00, 0x0A, 0x1A, 0x0A])
        let error = #expect(throws: CLIError.self) { try URLListFile(data: data, name: "image.png") }
        #expect(error?.message == "The URL file 'image.png' is not a text file of URLs: it contains NUL bytes.")
    }

    @Test func aReportListsTheFirstProblemsAndCountsTheRest() throws {
        let file = try list((1...50).map { "bad line \($0)" }.joined(separator: "\n"))
        try #require(file.problems.count == 50)

        let lines = URLListFile.report(file.problems).split(separator: "\n")

        #expect(lines.count == URLListFile.reportedProblemLimit + 1)
        #expect(lines.first == "webcache: urls.txt:1: 'bad line 1' contains spaces or control characters.")
        #expect(lines[19].hasPrefix("webcache: urls.txt:20: 'bad line 20'"))
        #expect(lines.last == "webcache: urls.txt: ... and 30 more lines that cannot be used")
        #expect(URLListFile.report(Array(file.problems.prefix(20))).split(separator: "\n").count == 20)
        #expect(URLListFile.report(Array(file.problems.prefix(21)))
            .hasSuffix("webcache: urls.txt: ... and 1 more line that cannot be used\n"))
    }

    // MARK: - Reading the file

    @Test func refusesABinaryStreamAtItsFirstNULByte() async throws {
        let folder = try TemporaryFolder()
        let fifo = folder.path("photo.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        // The writer sends a NUL byte, then holds the FIFO open: a read to the end would wait for it.
        let writer = try ChildProcess.spawn(
            "/bin/sh", ["-c", "exec 3>'\(fifo)'; printf 'GIF89a\\000' >&3; exec sleep 30"])
        let start = ContinuousClock.now

        let error = #expect(throws: CLIError.self) { try URLListStream(path: fifo) }

        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(error?.message == "The URL file '\(fifo)' is not a text file of URLs: it contains NUL bytes.")
        writer.send(SIGTERM)
        _ = await writer.finish()
    }

    @Test func namesAFileThatCannotBeReadInWords() throws {
        let folder = try TemporaryFolder()
        let missing = folder.path("absent.txt")
        let underAFile = try folder.write(Data("x".utf8), to: "plain.txt") + "/urls.txt"
        for (path, message) in [
            (missing, "The URL file '\(missing)' does not exist."),
            (folder.url.path, "The URL file '\(folder.url.path)' is a directory."),
            (underAFile, "The URL file '\(underAFile)' cannot be read: Not a directory."),
        ] {
            let error = #expect(throws: CLIError.self) { try URLListStream(path: path) }
            #expect(error?.message == message)
        }
        let present = try folder.write(Data("https://a.test/\n".utf8), to: "present.txt")
        #expect(try URLListStream(path: present).entryTexts() == ["https://a.test/"])
    }

    @Test func readsDevicesAndFIFOs() async throws {
        #expect(try URLListStream(path: "/dev/null").entryTexts().isEmpty)
        // A FIFO is what a pipe or a process substitution looks like to the reader.
        let folder = try TemporaryFolder()
        let fifo = folder.path("urls.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let writer = try ChildProcess.spawn(
            "/bin/sh", ["-c", "printf 'https://a.test/\\nhttps://b.test/\\n' > '\(fifo)'"])

        let file = Result { () throws(CLIError) in try URLListStream(path: fifo).entryTexts() }
        // Had the read failed without opening the FIFO, the writer would wait for a reader forever.
        close(open(fifo, O_RDONLY | O_NONBLOCK))

        #expect(await writer.finish().termination.succeeded)
        #expect(try file.get() == ["https://a.test/", "https://b.test/"])
    }
}

extension URLListStream {
    /// The text of every entry left to read.
    func entryTexts() -> [String] {
        var texts: [String] = []
        while let line = next() {
            if case .entry(let entry) = line { texts.append(entry.text) }
        }
        return texts
    }
}
