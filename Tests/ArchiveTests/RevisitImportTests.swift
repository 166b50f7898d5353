import Archive
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A revisit record whose content is neither in the archive before it nor in the store under its
/// payload digest takes, by `WARC-Refers-To-Target-URI`, only a complete response of its own
/// partition whose body has that digest; otherwise it is a damaged record.
@Suite(.timeLimit(.minutes(2)))
struct RevisitImportTests {
    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    private static let video7 = "https://site.test/video7.webm"
    private static let video9 = "https://site.test/video9.webm"
    private static let page = "https://site.test/page1.html"
    private static let copy = "https://site.test/copy.html"
    private static let version1 = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    private static let version2 = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) })
    private static let alicesPage = Data("<p>Alice's messages</p>\n".utf8)

    /// The `sha1:` label (base 32) of `data`, as wget writes it, computed by Python's hashlib.
    private func sha1Label(_ data: Data) async throws -> String {
        let script = "import hashlib, base64, sys; "
            + "print('sha1:' + base64.b32encode(hashlib.sha1(bytes.fromhex(sys.argv[1])).digest()).decode())"
        let hex = data.map { String(format: "%02x", $0) }.joined()
        let run = try await ExternalTools.run("/usr/bin/python3", ["-c", script, hex])
        try #require(run.exitCode == 0, "\(run.error)")
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aRevisitTakesByItsTargetOnlyACompleteResponseOfItsPartitionWithItsDigest() async throws {
        // Given a store holding video7 at version 2, a part of video9 at version 1, and Alice's page
        let target = folder.path("target.sqlite")
        let now = Date()
        try await withCacheStore(at: target) { store in
            _ = try await store.save(
                CacheEntry(url: Self.video7, status: 200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=3600"],
                           requestTime: now, responseTime: now, freshUntil: now.addingTimeInterval(3_600)),
                body: Self.version2)
            _ = try await store.save(
                CacheEntry(partition: "user-alice", url: Self.page, status: 200,
                           headers: ["Cache-Control": "private, max-age=600"], requestTime: now, responseTime: now,
                           freshUntil: now.addingTimeInterval(600)),
                body: Self.alicesPage)
            let partHeaders: HTTPHeaders = [
                "ETag": "\"v1\"", "Cache-Control": "max-age=3600", "Content-Range": "bytes 0-9999/50000",
            ]
            var writer = store.makeBodyWriter()
            try await writer.write(Self.version1.prefix(10_000))
            try await store.savePart(
                CacheEntry(url: Self.video9, status: 206, headers: partHeaders, requestTime: now, responseTime: now,
                           freshUntil: now.addingTimeInterval(3_600)),
                first: 0, completeLength: 50_000,
                completeHeaders: PartialEntry.completeHeaders(partHeaders, completeLength: 50_000), body: writer)
        }
        // and revisit records whose content is nowhere in the archive
        let version1Label = WARCDigest.sha256Label(SHA256.hash(Self.version1))
        let alicesLabel = try await sha1Label(Self.alicesPage)
        let otherLabel = try await sha1Label(Data("another page\n".utf8))
        let head: HTTPHeaders = ["ETag": "\"v1\"", "Cache-Control": "max-age=3600", "Content-Length": "50000"]
        let pageHead: HTTPHeaders = [
            "Cache-Control": "private, max-age=600", "Content-Length": String(Self.alicesPage.count),
        ]
        let warc = folder.path("revisits.warc")
        let places = try WARCFixture.write([
            // Version 1 of video9 said to be video7's content, which the store holds at version 2.
            .revisit(Self.video9, headers: head, digestLabel: version1Label, refersTo: Self.video7),
            // Version 1 of video9, of which the store holds only a part.
            .revisit(Self.video9, headers: head, digestLabel: version1Label, refersTo: Self.video9),
            // Bob's page said to be the content of Alice's, with its digest.
            .revisit(Self.page, headers: pageHead, digestLabel: alicesLabel, refersTo: Self.page,
                     fields: ["WebCache-Partition": "user-bob"]),
            // Alice's copy of her page, with another digest.
            .revisit(Self.copy, headers: pageHead, digestLabel: otherLabel, refersTo: Self.page,
                     fields: ["WebCache-Partition": "user-alice"]),
            // Alice's copy of her page, with its digest (SHA-1, as wget writes it).
            .revisit(Self.copy, headers: pageHead, digestLabel: alicesLabel, refersTo: Self.page,
                     fields: ["WebCache-Partition": "user-alice"]),
        ], to: warc)

        // When
        let imported = try await run("import", "--store", target, warc)
        let verify = try await run("verify", "--store", target)

        // Then only Alice's copy with the digest of her page is imported; the others are damaged records
        #expect(imported.exitCode == 1)
        let lines = imported.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(imported.stderr)")
        for (place, line) in zip(places.prefix(4), lines) {
            #expect(line.hasPrefix("\(place): The revisit record refers to content ("), "\(line)")
        }
        #expect(lines.last == "Error: 4 records were damaged and not imported; everything else was imported.")
        #expect(imported.stdout.hasPrefix("Imported 1 entry (1 from a revisit record, 24 B of bodies);"),
                "\(imported.stdout)")
        let entries = try ArchiveSite.entries(of: target).filter { !$0.entry.isPartial }
        #expect(entries.map { "\($0.entry.partition) \($0.entry.url)" }
            == ["guest \(Self.video7)", "user-alice \(Self.copy)", "user-alice \(Self.page)"])
        #expect(entries.first?.body == Self.version2)
        #expect(entries.dropFirst().allSatisfy { $0.body == Self.alicesPage })
        var configuration = CacheStore.Configuration()
        configuration.readOnly = true
        let store = try CacheStore(path: target, configuration: configuration)
        let partial = try #require(try store.partialVariants(url: Self.video9).first)
        #expect(partial.parts.map(\.first) == [0])
        #expect(try store.bodyData(bodyID: partial.parts[0].bodyID) == Self.version1.prefix(10_000))
        #expect(try store.variants(partition: "user-bob", method: .get, url: Self.page).isEmpty)
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    private func run(_ arguments: String...) async throws -> WebcacheRunner.Result {
        try await webcache.run(arguments)
    }
}
