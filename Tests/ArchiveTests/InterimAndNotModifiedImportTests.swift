import Archive
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `import` keeps what a cache stores (RFC 9111 §3), as the library does with what it receives: a
/// WARC block that holds interim (1xx) responses before the final one is imported as its final one;
/// a response that is only interim is skipped and counted, not stored and not damage; a 304 freshens
/// the stored response it validates (§4.3.4), or is skipped when it validates none.
@Suite(.timeLimit(.minutes(2)))
final class InterimAndNotModifiedImportTests: ArchiveSite, @unchecked Sendable {
    private static let resource = "https://example.test/page.txt"
    private static let copy = "https://example.test/copy.txt"
    private static let unchanged = "https://example.test/unchanged.txt"
    private static let socket = "https://example.test/socket"
    private static let body = "the final response's content\n"
    private static let finalHead = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: max-age=600\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n"

    /// Interim responses a recorder wrote before the final one: a `100 Continue`, or `103 Early Hints`
    /// longer than the pieces a WARC block is read in (256 KiB), so that a head is cut between two pieces.
    private static func interimResponses(longerThanAPiece: Bool) -> String {
        guard longerThanAPiece else { return "HTTP/1.1 100 Continue\r\n\r\n" }
        return (0..<40).map { hint in
            "HTTP/1.1 103 Early Hints\r\nLink: </hint-\(hint).css>; rel=preload; as=style; x=\""
                + String(repeating: "h", count: 10_000) + "\"\r\n\r\n"
        }.joined()
    }

    /// Writes an uncompressed WARC file `name` with a record of `type` for each `(uri, block)`; a
    /// revisit record refers to the first record and its content, ``body``.
    private func writeWARC(_ name: String, records: [(type: String, uri: String, block: String)]) throws -> String {
        let path = folder.path(name)
        let writer = try WARCWriter(path: path, compressionLevel: nil)
        for record in records {
            let block = Data(record.block.utf8)
            let revisit = record.type == "revisit"
            try writer.writeRecord(
                WARCHeader.http(
                    type: record.type, recordID: WARCHeader.makeRecordID(), targetURI: record.uri, date: Date(),
                    blockLength: Int64(block.count), blockDigest: SHA256.hash(block),
                    payloadDigest: revisit ? SHA256.hash(Data(Self.body.utf8)) : nil,
                    refersTo: revisit ? (records[0].uri, Date()) : nil),
                block: block)
        }
        try writer.close()
        return path
    }

    @Test(arguments: [false, true])
    func aRecordWithInterimResponsesBeforeTheFinalOneIsImportedAsItsFinalOne(longerThanAPiece: Bool) async throws {
        // Given a response record and a revisit record of the same content, each with interim responses
        let interim = Self.interimResponses(longerThanAPiece: longerThanAPiece)
        let warc = try writeWARC("interim.warc", records: [
            ("response", Self.resource, interim + Self.finalHead + Self.body),
            ("revisit", Self.copy, interim + Self.finalHead),
        ])
        let target = folder.path("target.sqlite")

        // When
        let imported = try await run("import", "--store", target, warc)
        let verify = try await run("verify", "--store", target)

        // Then both are stored as their final response, with its content
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stderr.isEmpty, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 2 entries (1 from a revisit record, 58 B of bodies); skipped 0 records "
            + "that are not HTTP responses to store; 0 damaged.\n")
        let stored = try Self.entries(of: target)
        #expect(stored.map(\.entry.url) == [Self.copy, Self.resource])
        for entry in stored {
            #expect(entry.entry.status == 200, "\(entry.entry.url)")
            #expect(entry.entry.headers == ["Content-Type": "text/plain", "Cache-Control": "max-age=600",
                                            "Content-Length": String(Self.body.utf8.count)])
            #expect(entry.body == Data(Self.body.utf8), "\(entry.entry.url)")
        }
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    /// A response as a recorder writes it.
    private struct Response: Sendable {
        var url: String
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    /// An interim response alone, a WebSocket's 101 with the frames after it, a 304 for a URL the store
    /// holds a 200 of with another tag; and the 200 of another URL.
    private static let skipped = [
        Response(url: resource, status: 100, headers: [:], body: ""),
        Response(url: socket, status: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"],
                body: "\u{81}\u{05}hello"),
        Response(url: unchanged, status: 304, headers: ["ETag": "\"other\"", "Cache-Control": "max-age=600"],
                body: ""),
        Response(url: copy, status: 200, headers: ["Cache-Control": "max-age=600"], body: body),
    ]

    /// Writes `responses` as a `format` (`warc` or `har`) file, recorded now.
    private func writeArchive(_ responses: [Response] = skipped, format: String) throws -> String {
        guard format == "har" else {
            return try writeWARC("skipped.warc", records: responses.map { response in
                ("response", response.url,
                 String(decoding: HTTPMessageHead(status: response.status, headers: response.headers).serialized(),
                        as: UTF8.self) + response.body)
            })
        }
        let json = try HARFixture.document(responses.map { ($0.url, $0.status, $0.headers, $0.body) })
        return try folder.write(json, to: "skipped.har")
    }

    @Test(arguments: ["warc", "har"])
    func aResponseThatIsOnlyInterimOrA304ThatValidatesNothingIsSkippedAndCounted(format: String) async throws {
        // Given a store holding the 200 the 304 stands for
        let target = folder.path("target.sqlite")
        let stored = CacheEntry(
            url: Self.unchanged, status: 200, headers: ["ETag": "\"u\"", "Cache-Control": "max-age=600"],
            requestTime: Date(), responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
        try await withCacheStore(at: target) { store in _ = try await store.save(stored, body: Data("unchanged".utf8)) }
        let archive = try writeArchive(format: format)

        // When
        let imported = try await run("import", "--store", target, archive)
        let verify = try await run("verify", "--store", target)

        // Then the 304 of another tag validates nothing
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stderr.isEmpty, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 1 entry (0 from revisit records, 29 B of bodies); skipped 3 records "
            + "that are not HTTP responses to store; 0 damaged.\n")
        let entries = try Self.entries(of: target)
        #expect(entries.map(\.entry.url) == [Self.copy, Self.unchanged])
        let unchanged = try #require(entries.last)
        #expect(unchanged.entry.status == 200 && unchanged.body == Data("unchanged".utf8))
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    @Test(arguments: ["warc", "har"])
    func a304FreshensTheStoredResponseItValidatesAsTheLoaderDoes(format: String) async throws {
        // Given a store holding a 200 that went stale an hour ago, and one stored after the archive was made
        let target = folder.path("target.sqlite")
        let before = Date().addingTimeInterval(-4_200)
        let stale = CacheEntry(
            url: Self.unchanged, status: 200,
            headers: ["ETag": "\"u\"", "Cache-Control": "max-age=600", "Content-Type": "text/plain"],
            requestTime: before, responseTime: before, freshUntil: before.addingTimeInterval(600))
        let later = Date().addingTimeInterval(3_600)
        let newer = CacheEntry(
            url: Self.resource, status: 200, headers: ["ETag": "\"n\"", "Cache-Control": "max-age=60"],
            requestTime: later, responseTime: later, freshUntil: later.addingTimeInterval(60))
        try await withCacheStore(at: target) { store in
            _ = try await store.save(stale, body: Data("unchanged".utf8))
            _ = try await store.save(newer, body: Data("newer".utf8))
        }
        // and an archive, recorded now, with 304s that validate both
        let archive = try writeArchive([
            Response(url: Self.unchanged, status: 304,
                    headers: ["ETag": "\"u\"", "Cache-Control": "max-age=900", "X-Checked": "yes"], body: ""),
            Response(url: Self.resource, status: 304, headers: ["ETag": "\"n\"", "X-Checked": "yes"], body: ""),
        ], format: format)

        // When
        let imported = try await run("import", "--store", target, archive)
        let verify = try await run("verify", "--store", target)

        // Then the stale 200 is fresh again with the 304's fields, its body unchanged; the newer one is kept
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 0 entries (0 from revisit records, 0 B of bodies); skipped 1 record "
            + "that is not an HTTP response to store; 0 damaged; refreshed 1 stored entry by 304 responses.\n")
        let entries = try Self.entries(of: target)
        #expect(entries.map(\.entry.url) == [Self.resource, Self.unchanged])
        let refreshed = try #require(entries.last)
        #expect(refreshed.entry.status == 200 && refreshed.body == Data("unchanged".utf8))
        #expect(refreshed.entry.headers["X-Checked"] == "yes")
        #expect(refreshed.entry.headers["Cache-Control"] == "max-age=900")
        #expect(refreshed.entry.headers["Content-Type"] == "text/plain")
        #expect(refreshed.entry.responseTime > before.addingTimeInterval(4_000))
        #expect(refreshed.entry.freshUntil > Date().addingTimeInterval(800))
        let kept = try #require(entries.first)
        #expect(kept.entry.headers["X-Checked"] == nil)
        #expect(abs(kept.entry.responseTime.timeIntervalSince(later)) < 1)
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    @Test func anInterimResponseFollowedByACutHeadIsADamagedRecord() async throws {
        // Given
        let warc = try writeWARC("cut.warc", records: [
            ("response", Self.resource, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/pl"),
            ("response", Self.copy, Self.finalHead + Self.body),
        ])
        let target = folder.path("target.sqlite")

        // When
        let imported = try await run("import", "--store", target, warc)

        // Then
        #expect(imported.exitCode == 1)
        #expect(imported.stderr == "\(warc)@0: The response record holds no complete HTTP response head.\n"
            + "Error: 1 record was damaged and not imported; everything else was imported.\n")
        #expect(try Self.entries(of: target).map(\.entry.url) == [Self.copy])
    }
}
