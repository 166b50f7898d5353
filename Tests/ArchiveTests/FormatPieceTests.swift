import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import Archive

/// The smaller pieces: chunked coding, HTTP heads, HAR content and zip members.
struct FormatPieceTests {
    @Test(arguments: [
        ("5\r\nhello\r\n0\r\n\r\n", "hello"),
        ("3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n", "abcde"),
        ("A\r\n0123456789\r\n0\r\n\r\n", "0123456789"),
    ])
    func chunkedCodingIsRemovedWhateverThePieces(coded: String, plain: String) throws {
        for split in 0...coded.utf8.count {
            var decoder = ChunkedDecoder()
            let bytes = Data(coded.utf8)
            let output = try decoder.decode(bytes.prefix(split)) + decoder.decode(bytes.dropFirst(split))
            #expect(String(decoding: output, as: UTF8.self) == plain, "split at \(split)")
            #expect(decoder.isFinished)
        }
    }

    @Test func chunkedCodingWithABadSizeIsRefused() {
        var decoder = ChunkedDecoder()
        #expect(throws: ArchiveError.self) { try decoder.decode(Data("zz\r\nhello\r\n".utf8)) }
    }

    @Test func httpHeadsParseAndWaitForTheirEnd() throws {
        let text = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nX-A: 1\r\nX-A: 2\r\n\r\nbody"
        #expect(try HTTPMessageHead.parse(Data(text.utf8).prefix(30)) == nil)

        let (head, start) = try #require(try HTTPMessageHead.parse(Data(text.utf8)))

        #expect(head.status == 404)
        #expect(head.reason == "Not Found")
        #expect(head.headers.values(for: "X-A") == ["1", "2"])
        #expect(String(decoding: Data(text.utf8)[start...], as: UTF8.self) == "body")
        #expect(head.serialized() == Data(text.utf8).prefix(upTo: start))
    }

    @Test func aHeadEndsAtItsFirstEmptyLineWhateverTheLineEndsAfterIt() throws {
        // Given a head whose lines end in LF alone, and a body holding CR LF CR LF
        let text = "HTTP/1.1 200 OK\nContent-Type: text/plain\n\nline\r\n\r\nNot: a field"
        // When
        let (head, start) = try #require(try HTTPMessageHead.parse(Data(text.utf8)))
        // Then the body starts after the first empty line
        #expect(head.headers.values(for: "Not") == [])
        #expect(head.headers.values(for: "Content-Type") == ["text/plain"])
        #expect(String(decoding: Data(text.utf8)[start...], as: UTF8.self) == "line\r\n\r\nNot: a field")
        // And in a slice of a larger buffer, from where the search starts
        let framed = Data("xx\r\n\r\nA: b\r\n\r\nc".utf8)
        #expect(HTTPMessageHead.blankLine(in: framed.dropFirst(2), from: 2) == 2..<6)
        #expect(HTTPMessageHead.blankLine(in: framed.dropFirst(2), from: 6) == 10..<14)
        // a search that starts inside an empty line's CR LF CR LF does not look back for its CR
        #expect(HTTPMessageHead.blankLine(in: framed, from: 3) == 10..<14)
        #expect(HTTPMessageHead.blankLine(in: framed, from: 14) == nil)
        #expect(HTTPMessageHead.blankLine(in: Data("A: b\r\n\r".utf8), from: 0) == nil)
    }

    @Test func headLinesEndInCRLFOrLFOrCRAndFoldedLinesJoinTheirField() throws {
        let bytes = Data("WARC/1.1\rA:  one \r\n\tmore\nB:\u{e9}t\u{e9}\r\n\r\nC : x".utf8)
        let (first, fields) = try HTTPMessageHead.lines(bytes)
        #expect(first == "WARC/1.1")
        #expect(fields.map(\.name) == ["A", "B", "C"])
        #expect(fields.map(\.value) == ["one more", "\u{e9}t\u{e9}", "x"])
        #expect(throws: ArchiveError.self) { try HTTPMessageHead.lines(Data("WARC/1.1\nno colon here".utf8)) }
    }

    @Test func harContentDecodesTextAndBase64AndRefusesBadBase64() throws {
        let binary = Data([0, 1, 2, 255])
        let content = HAREntry.Content(body: binary, mimeType: "image/png")
        #expect(content.encoding == "base64")
        #expect(try content.bytes() == binary)
        let text = HAREntry.Content(body: Data("héllo".utf8), mimeType: "text/plain")
        #expect(text.encoding == nil)
        #expect(try text.bytes() == Data("héllo".utf8))
        let bad = HAREntry.Content(size: 3, mimeType: "image/png", text: "not*base64!", encoding: "base64")
        let error = #expect(throws: ArchiveError.self) { try bad.bytes() }
        #expect(error?.reason == "The response content is marked base64 but is not valid base64.")
    }

    @Test func zipMembersStoredAndDeflatedAreRead() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("test.zip")
        let big = String(repeating: "deflate me ", count: 10_000)
        let script = """
            import zipfile, sys
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                z.writestr(zipfile.ZipInfo('archive/stored.txt'), 'stored bytes')
                z.writestr('archive/deflated.txt', sys.argv[2], compress_type=zipfile.ZIP_DEFLATED)
            """
        let python = try await ExternalTools.run("/usr/bin/python3", ["-c", script, path, big])
        #expect(python.exitCode == 0, "\(python.error)")

        let zip = try ZipArchive(path: path)

        #expect(zip.members.map(\.name) == ["archive/stored.txt", "archive/deflated.txt"])
        #expect(zip.members.map(\.method) == [0, 8])
        var contents: [String] = []
        for member in zip.members {
            let source = try await zip.contents(of: member)
            var data = Data()
            while case let piece = try await source.read(maxLength: 4096), !piece.isEmpty { data.append(piece) }
            contents.append(String(decoding: data, as: UTF8.self))
        }
        #expect(contents == ["stored bytes", big])
    }

    @Test func aFileThatIsNotAZipIsRefused() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write(Data("not a zip".utf8), to: "x.wacz")
        let error = #expect(throws: ArchiveError.self) { try ZipArchive(path: path) }
        #expect(error?.reason.contains("not a zip file") == true)
    }
}

/// gzip members for bytes that are compressed already are stored, not compressed again.
struct StoredMemberTests {
    @Test func aStoredMemberHoldsTheBytesAsTheyAreAndReadsBackTheSame() async throws {
        let text = Data(String(repeating: "webcache stores the web. ", count: 4_000).utf8)
        var generator = SeededGenerator(seed: 7)
        let noise = Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let writer = GzipMemberWriter(level: 1)
        var file = Data()
        var sizes: [Int] = []
        for (data, compressing) in [(text, true), (noise, false), (text, false), (text, true)] {
            writer.startMember(compressing: compressing)
            let member = writer.compress(data) + writer.finishMember()
            sizes.append(member.count)
            file += member
        }
        #expect(sizes[0] < text.count / 10, "compressed text: \(sizes)")
        #expect(sizes[1] > noise.count && sizes[1] < noise.count + 100, "stored noise: \(sizes)")
        #expect(sizes[2] > text.count, "stored text: \(sizes)")
        #expect(sizes[3] == sizes[0], "the level comes back for the next member: \(sizes)")
        let reader = GzipMemberReader(source: DataByteSource(file))
        for expected in [text, noise, text, text] {
            #expect(try await reader.nextMember())
            var member = Data()
            while case let piece = try await reader.read(maxLength: 1 << 16), !piece.isEmpty { member += piece }
            #expect(member == expected)
        }
    }

    @Test(arguments: [
        ("text/html; charset=utf-8", nil, true), ("application/javascript", nil, true), ("image/svg+xml", nil, true),
        ("image/png", nil, false), ("image/webp", nil, false), ("font/woff2", nil, false), ("video/webm", nil, false),
        ("text/css", "gzip", false), ("text/css", "identity", true), ("", nil, true),
    ] as [(String, String?, Bool)])
    func bodiesCompressedInThemselvesAreNotCompressedAgain(type: String, coding: String?, compressible: Bool) {
        var headers: HTTPHeaders = ["Content-Type": type]
        if let coding { headers["Content-Encoding"] = coding }
        #expect(WARCWriter.isCompressible(headers) == compressible)
    }
}
