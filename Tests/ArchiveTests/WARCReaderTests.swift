import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import Archive

/// The WARC reader and writer on bytes: records round-trip, compressed or not, and a damaged record
/// is reported at its offset while the records after it are still read.
struct WARCReaderTests {
    /// A WARC file of `blocks`, one `resource` record each, compressed record by record or not.
    private func makeFile(_ blocks: [String], compressed: Bool, in folder: TemporaryFolder) throws -> String {
        let path = folder.path("test" + (compressed ? ".warc.gz" : ".warc"))
        let writer = try WARCWriter(path: path, compressionLevel: compressed ? 6 : nil)
        for block in blocks {
            let data = Data(block.utf8)
            try writer.writeRecord(
                WARCHeader(fields: [
                    "WARC-Type": "resource", "WARC-Record-ID": WARCHeader.makeRecordID(),
                    "WARC-Target-URI": "https://example.test/\(block.count)",
                    "Content-Length": String(data.count),
                ]),
                block: data)
        }
        try writer.close()
        return path
    }

    /// Every record's block and error message, in order, read from the file or from `source`.
    private func readAll(
        _ path: String, source: (any ByteSource)? = nil
    ) async throws -> (blocks: [String], errors: [String], offsets: [Int64]) {
        let reader = try await WARCReader(source: source ?? FileByteSource(path: path))
        var blocks: [String] = []
        var errors: [String] = []
        var offsets: [Int64] = []
        // A bound rather than `while true`: a reader that makes no progress fails the test instead of hanging.
        for call in 0... {
            guard call < 10_000 else {
                Issue.record("The reader did not end: \(errors.count) errors, the last \(errors.last ?? "").")
                break
            }
            do {
                guard let record = try await reader.nextRecord() else { break }
                var block = Data()
                while let piece = try await reader.readBlock() { block.append(piece) }
                blocks.append(String(decoding: block, as: UTF8.self))
                offsets.append(record.offset)
            } catch let error as ArchiveError {
                errors.append(error.message(file: "test"))
            }
        }
        return (blocks, errors, offsets)
    }

    @Test(arguments: [false, true])
    func recordsRoundTrip(compressed: Bool) async throws {
        let folder = try TemporaryFolder()
        let big = String(repeating: "0123456789", count: 100_000)
        let path = try makeFile(["first", "", big, "last\r\n\r\n"], compressed: compressed, in: folder)

        let read = try await readAll(path)

        #expect(read.errors == [])
        #expect(read.blocks == ["first", "", big, "last\r\n\r\n"])
        #expect(read.offsets.first == 0)
    }

    /// Bytes that cannot be sought, at most `pieceSize` a read, as a pipe or an inflated zip member gives them.
    private final class PipeSource: ByteSource {
        private var data: Data
        private let pieceSize: Int

        init(_ data: Data, pieceSize: Int) {
            self.data = data
            self.pieceSize = pieceSize
        }

        func read(maxLength: Int) async throws -> Data {
            let piece = data.prefix(min(maxLength, pieceSize))
            data = data.dropFirst(piece.count)
            return Data(piece)
        }
    }

    @Test(arguments: [false, true], [1, 1 << 20])
    func recordsRoundTripFromASourceThatCannotSeek(compressed: Bool, pieceSize: Int) async throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(["first", "", "last\r\n\r\n"], compressed: compressed, in: folder)
        let source = PipeSource(try Data(contentsOf: URL(fileURLWithPath: path)), pieceSize: pieceSize)

        let read = try await readAll(path, source: source)

        #expect(read.errors == [])
        #expect(read.blocks == ["first", "", "last\r\n\r\n"])
        #expect(read.offsets.first == 0)
    }

    @Test(arguments: [false, true])
    func aBlockThatDisagreesWithItsContentLengthIsRefusedAndItsRecordLeftOut(compressed: Bool) async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("test" + (compressed ? ".warc.gz" : ".warc"))
        let writer = try WARCWriter(path: path, compressionLevel: compressed ? 6 : nil)
        func header(_ length: Int) -> WARCHeader {
            WARCHeader(fields: [
                "WARC-Type": "resource", "WARC-Record-ID": WARCHeader.makeRecordID(),
                "WARC-Target-URI": "https://example.test/\(length)", "Content-Length": String(length),
            ])
        }
        try writer.writeRecord(header(3), block: Data("one".utf8))

        // Shorter, after more than the writer buffers has gone to the file; then longer.
        try writer.beginRecord(header(3 << 20))
        try writer.writeBlock(Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        let short = #expect(throws: ArchiveError.self) { try writer.endRecord() }
        try writer.beginRecord(header(5))
        let long = #expect(throws: ArchiveError.self) { try writer.writeBlock(Data("too long".utf8)) }
        try writer.discardRecord()
        try writer.writeRecord(header(5), block: Data("three".utf8))
        try writer.close()

        #expect(short?.reason == "The record's block is 1048576 bytes shorter than its Content-Length.")
        #expect(long?.reason == "The record's block is longer than its Content-Length.")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size.map(Int64.init) == writer.bytesWritten)
        let read = try await readAll(path)
        #expect(read.errors == [])
        #expect(read.blocks == ["one", "three"])
    }

    @Test(arguments: [false, true])
    func aFileThatDoesNotStartWithARecordIsNotAWARCFile(compressed: Bool) async throws {
        let folder = try TemporaryFolder()
        let text = Data("\r\njust some text\nWARC/1.1 is not at the start of a line here\n".utf8)
        let compressor = GzipMemberWriter()
        let path = try folder.write(compressed ? compressor.compress(text) + compressor.finishMember() : text,
                                    to: compressed ? "notes.warc.gz" : "notes.warc")

        let read = try await readAll(path)

        #expect(read.blocks == [])
        #expect(read.errors == ["test: The file does not start with a WARC record, so it is not a WARC file."])
    }

    @Test func aTruncatedGzipMemberIsReportedAtItsOffsetAfterTheSoundRecords() async throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(["one", "two", String(repeating: "x", count: 5000)], compressed: true, in: folder)
        let sound = try await readAll(path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.removeLast(10)
        try bytes.write(to: URL(fileURLWithPath: path))

        let read = try await readAll(path)

        #expect(read.blocks == ["one", "two"])
        #expect(read.errors == ["test@\(sound.offsets[2]): The gzip member is truncated: the file ends inside it."])
    }

    @Test(arguments: [false, true])
    func aWrongContentLengthIsReportedAndTheNextRecordIsRead(compressed: Bool) async throws {
        let folder = try TemporaryFolder()
        // The second record's Content-Length 3 bytes short (uncompressed) or long (compressed).
        let (bad, secondOffset) = try makeDamagedFile(compressed: compressed, in: folder)

        let read = try await readAll(bad)

        #expect(read.blocks == ["alpha", "charlie"])
        #expect(read.errors.count == 1)
        #expect(read.errors.first?.hasPrefix("test@\(secondOffset): The record") == true)
    }

    /// A file of three records whose second has a wrong Content-Length, and that record's offset.
    private func makeDamagedFile(compressed: Bool, in folder: TemporaryFolder) throws -> (String, Int64) {
        let damaged = folder.path("damaged" + (compressed ? ".warc.gz" : ".warc"))
        let compressor = GzipMemberWriter()
        var file = Data()
        var secondOffset: Int64 = 0
        for (index, block) in ["alpha", "bravo-long-block", "charlie"].enumerated() {
            let data = Data(block.utf8)
            let length = index == 1 ? data.count + (compressed ? 3 : -3) : data.count
            let header = WARCHeader(fields: [
                "WARC-Type": "resource", "WARC-Record-ID": WARCHeader.makeRecordID(),
                "WARC-Target-URI": "https://example.test/\(block.count)", "Content-Length": String(data.count),
            ]).serialized()
            // Built by hand: the writer refuses a block that disagrees with its Content-Length.
            var text = String(decoding: header, as: UTF8.self)
            text = text.replacingOccurrences(of: "Content-Length: \(data.count)", with: "Content-Length: \(length)")
            let record = Data(text.utf8) + data + Data("\r\n\r\n".utf8)
            if index == 1 { secondOffset = Int64(file.count) }
            file += compressed ? compressor.compress(record) + compressor.finishMember() : record
        }
        try file.write(to: URL(fileURLWithPath: damaged))
        return (damaged, secondOffset)
    }

    @Test func aDamagedGzipMemberIsSkippedToTheNextMember() async throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(["one", String(repeating: "two ", count: 500), "three"], compressed: true, in: folder)
        let sound = try await readAll(path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Overwrite the middle of the second member's deflate data.
        let middle = Int(sound.offsets[1]) + 20
        bytes.replaceSubrange(middle..<(middle + 8), with: Data(repeating: 0xFF, count: 8))
        try bytes.write(to: URL(fileURLWithPath: path))

        let read = try await readAll(path)

        #expect(read.blocks == ["one", "three"])
        #expect(read.errors.count == 1)
        #expect(read.errors.first?.hasPrefix("test@\(sound.offsets[1]): The gzip member is damaged") == true)
    }

    /// The bytes of `data` up to `failingAt`, then the error of a disk that can no longer be read,
    /// at every read from then on.
    private final class FailingSource: ByteSource {
        private var data: Data

        init(_ data: Data, failingAt offset: Int) {
            self.data = data.prefix(offset)
        }

        func read(maxLength: Int) async throws -> Data {
            guard !data.isEmpty else { throw ArchiveError(reason: "The disk cannot be read.") }
            let piece = data.prefix(maxLength)
            data = data.dropFirst(piece.count)
            return Data(piece)
        }
    }

    @Test(arguments: [false, true])
    func aSourceThatFailsPartWayIsReportedOnceAndEndsTheRecords(compressed: Bool) async throws {
        let folder = try TemporaryFolder()
        let blocks = (0..<6).map { String(repeating: "\($0)", count: 1000) }
        let path = try makeFile(blocks, compressed: compressed, in: folder)
        let sound = try await readAll(path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // In the middle of the fourth record.
        let failure = Int(sound.offsets[3] + sound.offsets[4]) / 2

        let read = try await readAll(path, source: FailingSource(bytes, failingAt: failure))

        #expect(read.blocks == Array(blocks.prefix(3)))
        #expect(read.errors == ["test@\(sound.offsets[3]): The disk cannot be read."])
    }

    @Test func headerFieldsParseWithContinuationLinesAndAngleBrackets() throws {
        let text = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://a.test/>\r\nX-Long: one\r\n two\r\n"
            + "Content-Length: 12"

        let header = try WARCHeader.parse(Data(text.utf8))

        #expect(header.version == "WARC/1.0")
        #expect(header.type == "response")
        #expect(header.targetURI == "http://a.test/")
        #expect(header.fields["X-Long"] == "one two")
        #expect(header.contentLength == 12)
    }

    @Test(arguments: [
        ("2026-12-01T16:15:59Z", 1_796_141_759.0),
        ("2026-12-01T16:15:59.5Z", 1_796_141_759.5),
        ("1999-01-01T00:00:00.000001Z", 915_148_800.000001),
    ])
    func datesParse(text: String, seconds: Double) throws {
        let date = try #require(WARCDate.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
        #expect(WARCDate.parse(WARCDate.format(date)).map { abs($0.timeIntervalSince(date)) < 1e-6 } == true)
    }

    @Test(arguments: [
        (1_796_141_759.0, "2026-12-01T16:15:59.000000Z"),
        (915_148_800.000001, "1999-01-01T00:00:00.000001Z"),
        (-0.5, "1969-12-31T23:59:59.500000Z"),
        (253_402_300_800.5, "10000-01-01T00:00:00.500000Z"),
    ])
    func datesAreWrittenWithMicrosecondsAndEveryDigitOfTheYear(seconds: Double, text: String) {
        #expect(WARCDate.format(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test func datesThatAreNotWARCDatesAreRefused() {
        #expect(WARCDate.parse("2026-12-01 16:15:59") == nil)
        #expect(WARCDate.parse("yesterday") == nil)
    }

    @Test func sha256DigestsAreBase32AsWarcioWritesThem() {
        // python3 -c 'import base64,hashlib;print(base64.b32encode(hashlib.sha256(b"abc").digest()))'
        let label = WARCDigest.sha256Label(SHA256.hash(Data("abc".utf8)))
        #expect(label == "sha256:XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWWQ====")
        #expect(WARCDigest.sha256(fromLabel: label) == SHA256.hash(Data("abc".utf8)))
        let hex = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(WARCDigest.sha256(fromLabel: hex) == SHA256.hash(Data("abc".utf8)))
        #expect(WARCDigest.sha256(fromLabel: "sha1:ABC") == nil)
        // Base 32 in lower case is the same digest; a letter outside the alphabet is no digest
        #expect(WARCDigest.sha256(fromLabel: "SHA256:" + label.dropFirst(7).lowercased()) == SHA256.hash(Data("abc".utf8)))
        #expect(WARCDigest.sha256(fromLabel: "sha256:XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWW1====") == nil)
        #expect(WARCDigest.sha256(fromLabel: "sha256:XJ4BNP4PAHH6UQKBIDPF3LRCEOYAGYNDSYLXVHFUCD7WD4QACWWß===") == nil)
    }
}
