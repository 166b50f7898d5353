import Archive
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `import` of 206 responses: one that carries a single `Content-Range` of a known complete length is
/// stored as a part of a partial entry by the store's rule for parts, so that a partial entry comes
/// back from its export; one whose bytes have no known place is reported by record or entry and URL,
/// and the rest is imported.
@Suite(.timeLimit(.minutes(2)))
final class PartialEntryImportTests: ArchiveSite, @unchecked Sendable {
    /// A partial entry with the bytes of each of its parts.
    private struct StoredPartial {
        var entry: CacheEntry
        var parts: [(first: Int64, bytes: Data)]
    }

    /// The partial entry for `url` in the store at `path`, if it holds one.
    private static func partial(at path: String, url: String) throws -> StoredPartial? {
        var configuration = CacheStore.Configuration()
        configuration.readOnly = true
        let store = try CacheStore(path: path, configuration: configuration)
        guard let partial = try store.partialVariants(url: url).first else { return nil }
        return StoredPartial(
            entry: partial.entry,
            parts: try partial.parts.map { ($0.first, try store.bodyData(bodyID: $0.bodyID)) })
    }

    /// The header fields of `entry` as sorted lines, for stores that may keep them in another order.
    private static func fieldLines(_ entry: CacheEntry) -> [String] {
        entry.headers.map { "\($0.name): \($0.value)" }.sorted()
    }

    /// Exports ``store`` as `name`: a WARC or HAR file by its name, or a WACZ file holding a WARC file.
    private func export(as name: String) async throws -> String {
        let wacz = name.hasSuffix(".wacz")
        let output = folder.path(wacz ? "data.warc.gz" : name)
        let export = try await run("export", "--store", store, name.hasSuffix(".har") ? "--har" : "--warc", output)
        try #require(export.exitCode == 0, "\(export.stderr)")
        guard wacz else { return output }
        let path = folder.path(name)
        let script = """
            import zipfile, sys
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                z.write(sys.argv[2], 'archive/data.warc.gz')
            """
        let zip = try await ExternalTools.run("/usr/bin/python3", ["-c", script, path, output])
        try #require(zip.exitCode == 0, "\(zip.error)")
        return path
    }

    @Test(arguments: ["parts.warc", "parts.warc.gz", "parts.har", "parts.wacz"])
    func aPartialEntryComesBackFromItsExportWithItsParts(name: String) async throws {
        // Given
        try await storeParts()
        let original = try #require(try Self.partial(at: store, url: url("/ranged.bin")))
        let archive = try await export(as: name)
        let copy = folder.path("copy.sqlite")
        let served = folder.path("served.bin")

        // When
        let imported = try await run("import", "--store", copy, archive)
        let verify = try await run("verify", "--store", copy)
        let get = try await run("get", "--store", copy, "--policy", "cache-only", "-H", "Range: bytes=5100-5199",
                                "-o", served, url("/ranged.bin"))

        // Then
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stderr.isEmpty, "\(imported.stderr)")
        let skipped = name.hasSuffix(".har") ? "0 records that are not HTTP responses" // no warcinfo record
            : "1 record that is not an HTTP response"
        #expect(imported.stdout == "Imported 1 entry and 2 parts of partial entries (0 from revisit records, "
            + "2.0 KiB of bodies); skipped \(skipped) to store; 0 damaged.\n")
        let copied = try #require(try Self.partial(at: copy, url: url("/ranged.bin")))
        #expect(copied.entry.status == 206 && copied.entry.completeLength == Int64(Self.ranged.count))
        #expect(Self.fieldLines(copied.entry) == Self.fieldLines(original.entry))
        // HAR times have milliseconds.
        for (a, b) in [(copied.entry.responseTime, original.entry.responseTime),
                       (copied.entry.freshUntil, original.entry.freshUntil)] {
            #expect(abs(a.timeIntervalSince(b)) <= 0.002, "\(a) vs \(b)")
        }
        #expect(copied.parts.map(\.first) == original.parts.map(\.first))
        #expect(copied.parts.map(\.first) == Self.partStarts.map { Int64($0) })
        for part in copied.parts {
            let first = Int(part.first)
            #expect(part.bytes == Self.ranged.subdata(in: first..<(first + 1_000)), "part at \(first)")
        }
        #expect(try Self.entries(of: copy).map(\.entry.url) == [url("/empty.txt"), url("/ranged.bin")])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
        #expect(get.exitCode == 0, "\(get.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: served)) == Self.ranged.subdata(in: 5_100..<5_200))
    }

    @Test func importedPartsJoinThoseOfTheirRepresentationAndCompleteIt() async throws {
        // Given a store holding every byte of the ranged file but those of the exported parts
        try await storeParts()
        let warc = try await export(as: "parts.warc")
        let target = folder.path("target.sqlite")
        for range in ["0-999", "2000-4999", "6000-99999"] {
            let got = try await run("get", "--store", target, "-H", "Range: bytes=\(range)", url("/ranged.bin"))
            try #require(got.exitCode == 0, "\(got.stderr)")
        }

        // When
        let imported = try await run("import", "--store", target, warc)
        let verify = try await run("verify", "--store", target)

        // Then the parts were combined and made the entry complete
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(try Self.partial(at: target, url: url("/ranged.bin")) == nil)
        let ranged = try #require(try Self.entries(of: target).first { $0.entry.url == url("/ranged.bin") })
        #expect(ranged.entry.status == 200 && !ranged.entry.isPartial)
        #expect(ranged.entry.headers["Content-Range"] == nil)
        #expect(ranged.entry.headers.values(for: "Content-Length") == [String(Self.ranged.count)])
        // By digest: Swift Testing would explain a failed == of 100,000 bytes with a diff, which takes a minute.
        #expect(SHA256.hash(ranged.body) == SHA256.hash(Self.ranged), "\(ranged.body.count) bytes")
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    // MARK: - 206 responses that are not parts

    /// A response of a hand-made archive, and what import reports about it.
    private struct Response: Sendable {
        var url: String
        var status = 206
        var headers: HTTPHeaders
        var body: String
        /// The sentence import reports it with; `nil` for a response imported, or skipped and counted.
        var reason: String?
    }

    private static let clip = "https://example.test/clip.bin"

    /// 206 responses for one representation of which one is a part and one (without a strong `ETag`)
    /// is not kept by a cache, the others reported; and a 200 of another resource.
    private static let responses: [Response] = [
        Response(url: clip, headers: ["ETag": "\"c\""], body: "0123456789",
                 reason: "The 206 response for \(clip) has no Content-Range, so the place of its bytes in the whole "
                    + "is not known."),
        Response(url: clip, headers: ["ETag": "\"c\"", "Content-Range": "bytes 9-0/100"], body: "0123456789",
                 reason: "The 206 response for \(clip) has the Content-Range 'bytes 9-0/100', which is not one range "
                    + "of a known complete length (bytes FIRST-LAST/LENGTH)."),
        Response(url: clip, headers: ["ETag": "\"c\"", "Content-Range": "bytes 10-19/*"], body: "0123456789",
                 reason: "The 206 response for \(clip) has the Content-Range 'bytes 10-19/*', which is not one range "
                    + "of a known complete length (bytes FIRST-LAST/LENGTH)."),
        Response(url: clip, headers: ["ETag": "\"c\"", "Content-Type": "multipart/byteranges; boundary=B"],
                 body: "--B\r\nContent-Range: bytes 0-1/100\r\n\r\n01\r\n--B--\r\n",
                 reason: "The 206 response for \(clip) is multipart/byteranges: the ranges it holds are not kept as "
                    + "parts."),
        Response(url: clip, headers: ["ETag": "\"c\"", "Content-Range": "bytes 20-29/100"], body: "01234",
                 reason: "The 206 response for \(clip) holds 5 bytes, not the 10 of its Content-Range."),
        Response(url: clip, headers: ["Content-Range": "bytes 30-39/100"], body: "0123456789"),
        Response(url: clip, headers: ["ETag": "\"c\"", "Content-Range": "bytes 40-49/100"], body: "abcdefghij"),
        Response(url: "https://example.test/page.txt", status: 200,
                 headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=600"], body: "page"),
    ]

    /// Writes ``responses`` as a WARC file; returns its path and the place of each response record.
    private func writeWARC() throws -> (path: String, places: [String]) {
        let path = folder.path("ranges.warc")
        let writer = try WARCWriter(path: path, compressionLevel: nil)
        var places: [String] = []
        for response in Self.responses {
            var headers = response.headers
            headers.append(name: "Content-Length", value: String(response.body.utf8.count))
            let head = HTTPMessageHead(status: response.status, headers: headers).serialized()
            let block = head + Data(response.body.utf8)
            places.append("\(path)@\(writer.bytesWritten)")
            try writer.writeRecord(
                WARCHeader.http(
                    type: "response", recordID: WARCHeader.makeRecordID(), targetURI: response.url, date: Date(),
                    blockLength: Int64(block.count), blockDigest: SHA256.hash(block), payloadDigest: nil),
                block: block)
        }
        try writer.close()
        return (path, places)
    }

    /// Writes ``responses`` as a HAR file; returns its path and the place of each entry.
    private func writeHAR() throws -> (path: String, places: [String]) {
        let path = folder.path("ranges.har")
        let json = try HARFixture.document(Self.responses.map { ($0.url, $0.status, $0.headers, $0.body) })
        _ = try folder.write(json, to: "ranges.har")
        return (path, Self.responses.indices.map { "\(path)#entry \($0)" })
    }

    @Test(arguments: ["warc", "har"])
    func a206WhoseBytesHaveNoKnownPlaceIsReportedAndTheRestImported(format: String) async throws {
        // Given
        let (archive, places) = format == "har" ? try writeHAR() : try writeWARC()
        let copy = folder.path("copy.sqlite")

        // When
        let imported = try await run("import", "--store", copy, archive)
        let verify = try await run("verify", "--store", copy)

        // Then
        let reported = zip(places, Self.responses).compactMap { place, response in
            response.reason.map { "\(place): \($0)\n" }
        }
        #expect(imported.exitCode == 1)
        #expect(imported.stderr == reported.joined()
            + "Error: 5 records were damaged and not imported; everything else was imported.\n")
        #expect(imported.stdout == "Imported 1 entry and 1 part of a partial entry (0 from revisit records, 14 B of "
            + "bodies); skipped 1 record that is not an HTTP response to store; 5 damaged.\n")
        let partial = try #require(try Self.partial(at: copy, url: Self.clip))
        #expect(partial.entry.completeLength == 100)
        #expect(partial.parts.map(\.first) == [40])
        #expect(partial.parts.map(\.bytes) == [Data("abcdefghij".utf8)])
        #expect(try Self.entries(of: copy).map(\.entry.url) == [Self.clip, "https://example.test/page.txt"])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }
}
