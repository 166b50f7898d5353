import Archive
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `import` follows merge's rule: for the same partition, URL and Vary key the response received
/// last wins, and the store's wins a tie (times within a second, as archives round them); an
/// archived response older than the store's is left out
/// and counted, and so is a part of an older representation than the store's entry or parts.
@Suite(.timeLimit(.minutes(2)))
struct OlderResponseImportTests {
    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    private static let site = "https://site.test"
    /// Whole seconds, so that the store's times and the archive's are the same instant.
    private static let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    private static let video = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })

    private static func entry(_ path: String, tag: String, at time: Date, status: Int = 200,
                              range: String? = nil) -> CacheEntry {
        var headers: HTTPHeaders = ["ETag": "\"\(tag)\"", "Cache-Control": "max-age=3600"]
        if let range { headers.append(name: "Content-Range", value: range) }
        return CacheEntry(url: site + path, status: status, headers: headers, requestTime: time, responseTime: time,
                          freshUntil: time.addingTimeInterval(3_600))
    }

    @Test(arguments: ["--warc", "--har"])
    func aStoresOwnExportImportedAgainChangesNothing(format: String) async throws {
        // Given a store whose responses were received at instants an archive gives rounded up (999.6 µs
        // after a second: the next microsecond, the next millisecond)
        let store = folder.path("own.sqlite")
        let received = Self.now.addingTimeInterval(0.000_999_6)
        let stored = try await withCacheStore(at: store) { store in
            for index in 0..<4 {
                _ = try await store.save(Self.entry("/own\(index).html", tag: "v\(index)", at: received),
                                         body: Data("own \(index)".utf8))
            }
            return try store.entries(after: 0, limit: 10)
        }
        let archive = folder.path("own." + format.dropFirst(2))
        #expect(try await webcache.run(["export", "--store", store, format, archive]).exitCode == 0)
        // When the archive is imported into the store it came from
        let result = try await webcache.run(["import", archive, "--store", store])
        // Then every response is taken for the one stored, which stays as it was
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 0 entries"), "\(result.stdout)")
        let after = try await withCacheStore(at: store) { try $0.entries(after: 0, limit: 10) }
        #expect(after.map(\.storedAt) == stored.map(\.storedAt))
        #expect(after.map(\.id) == stored.map(\.id))
    }

    @Test func anArchivedResponseOlderThanTheStoresIsLeftOutAndCounted() async throws {
        // Given a store holding responses received now (a complete video, parts of another), and
        // one received two hours ago
        let target = folder.path("target.sqlite")
        let hourAgo = Self.now.addingTimeInterval(-3_600)
        try await withCacheStore(at: target) { store in
            _ = try await store.save(Self.entry("/page2.html", tag: "v2", at: Self.now), body: Data("page2 v2".utf8))
            _ = try await store.save(Self.entry("/page4.html", tag: "v2", at: hourAgo), body: Data("page4 v2".utf8))
            _ = try await store.save(Self.entry("/video8.webm", tag: "v2", at: Self.now), body: Self.video)
            _ = try await store.save(
                Self.entry("/page3.html", tag: "v1", at: Self.now.addingTimeInterval(-7_200)),
                body: Data("page3 v1".utf8))
            let part = Self.entry("/video6.webm", tag: "v2", at: Self.now, status: 206, range: "bytes 0-9999/50000")
            var writer = store.makeBodyWriter()
            try await writer.write(Self.video.prefix(10_000))
            try await store.savePart(
                part, first: 0, completeLength: 50_000,
                completeHeaders: PartialEntry.completeHeaders(part.headers, completeLength: 50_000), body: writer)
        }
        // and an archive recorded an hour ago, at version 1
        func response(_ path: String, status: Int = 200, range: String? = nil, body: Data) -> WARCFixture.HTTPRecord {
            var headers: HTTPHeaders = ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"]
            if let range { headers.append(name: "Content-Range", value: range) }
            return .response(Self.site + path, status: status, headers: headers, body: body, date: hourAgo)
        }
        let warc = folder.path("older.warc")
        try WARCFixture.write([
            response("/page2.html", body: Data("page2 v1".utf8)),
            // Received at the same time as the store's: the store's wins the tie.
            response("/page4.html", body: Data("page4 v1".utf8)),
            response("/video8.webm", status: 206, range: "bytes 0-99/50000", body: Self.video.prefix(100)),
            response("/video6.webm", status: 206, range: "bytes 10000-19999/50000",
                     body: Self.video.subdata(in: 10_000..<20_000)),
            // Newer than the store's.
            response("/page3.html", body: Data("page3 v2".utf8)),
        ], to: warc)

        // When
        let imported = try await webcache.run(["import", "--store", target, warc])
        let json = try await webcache.run(["import", "--json", "--store", target, warc])
        let verify = try await webcache.run(["verify", "--store", target])

        // Then
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 1 entry (0 from revisit records, 8 B of bodies); skipped 0 records that "
            + "are not HTTP responses to store; 0 damaged; 4 older than the store's, left out.\n")
        let summary = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        // The second import's page3 is the one the first stored: a tie.
        #expect(summary["imported"] as? Int == 0 && summary["older"] as? Int == 5, "\(json.stdout)")
        let entries = try ArchiveSite.entries(of: target)
        let byPath = Dictionary(uniqueKeysWithValues: entries.map { (URL(string: $0.entry.url)?.path ?? "", $0) })
        #expect(byPath["/page2.html"]?.body == Data("page2 v2".utf8))
        #expect(byPath["/page4.html"]?.body == Data("page4 v2".utf8))
        #expect(byPath["/page3.html"]?.body == Data("page3 v2".utf8))
        let video8 = try #require(byPath["/video8.webm"])
        #expect(!video8.entry.isPartial && video8.entry.etag == "\"v2\"" && video8.body == Self.video)
        var configuration = CacheStore.Configuration()
        configuration.readOnly = true
        let store = try CacheStore(path: target, configuration: configuration)
        let video6 = try #require(try store.partialVariants(url: Self.site + "/video6.webm").first)
        #expect(video6.entry.etag == "\"v2\"")
        #expect(video6.parts.map(\.first) == [0])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }
}
