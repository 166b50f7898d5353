import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `export` and `import` with the real executable: warcio accepts every exported file, and what an
/// export holds imports into an empty store as the same entries, headers, bodies and ages.
@Suite(.timeLimit(.minutes(2)))
final class ArchiveRoundTripTests: ArchiveSite, @unchecked Sendable {
    @Test func anExportedWARCPassesWarcioAndImportsAsTheSameEntries() async throws {
        // Given
        try await preload()
        let original = try Self.entries(of: store)
        let decoded = try #require(original.first { $0.entry.url.hasSuffix("/coded.txt") })
        try #require(decoded.entry.decodedFrom == "gzip")
        let warc = folder.path("site.warc.gz")

        // When
        let export = try await run("export", "--store", store, "--warc", warc)
        let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", "-v", warc])
        let index = try await ExternalTools.run(try ExternalTools.warcio, ["index", "-f", "warc-type,warc-target-uri", warc])
        let copy = folder.path("copy.sqlite")
        let imported = try await run("import", "--store", copy, warc)

        // Then
        #expect(export.exitCode == 0, "\(export.stderr)")
        #expect(export.stdout.hasPrefix("Exported 7 entries (1 as a revisit record) and "))
        #expect(check.exitCode == 0, "warcio check: \(check.output) \(check.error)")
        #expect(check.output.components(separatedBy: "digest pass").count - 1 == 13, "\(check.output)")
        #expect(!check.output.contains("fail"))
        let types = index.output.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: String]
        }
        #expect(index.exitCode == 0)
        #expect(types.map { $0["warc-type"] ?? "" }.filter { $0 == "response" }.count == 6)
        #expect(types.map { $0["warc-type"] ?? "" }.filter { $0 == "revisit" }.count == 1)
        #expect(types.map { $0["warc-type"] ?? "" }.filter { $0 == "request" }.count == 7)
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported 7 entries (1 from a revisit record, "))
        let copied = try Self.entries(of: copy)
        Self.expectSameEntries(copied, as: original, tolerance: 0.000_01)
        let images = copied.filter { $0.entry.url.hasSuffix(".svg") }
        #expect(images.count == 2 && images[0].entry.bodyID == images[1].entry.bodyID)
        #expect(try await run("verify", "--store", copy).exitCode == 0)
    }

    @Test func aPageTheStoreKnowsNothingOfIsNamedAndNothingIsWritten() async throws {
        try await preload()
        let warc = folder.path("none.warc")

        let export = try await run("export", "--store", store, "--warc", warc, "--page", url("/mistyped.html"))

        #expect(export.exitCode == 1)
        #expect(export.stderr == "Error: '\(url("/mistyped.html"))' is neither a recorded page nor an entry in the "
            + "store '\(store)'; nothing was written.\n")
        #expect(!FileManager.default.fileExists(atPath: warc))
    }

    @Test func aDecodedBodyIsExportedAsTheBytesItHoldsAndSaysSo() async throws {
        try await preload()
        let warc = folder.path("site.warc")

        let export = try await run("export", "--store", store, "--warc", warc, "--page", url("/page.html"))

        #expect(export.exitCode == 0, "\(export.stderr)")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: warc)), as: UTF8.self)
        let record = try #require(text.components(separatedBy: "WARC/1.1\r\n").first {
            $0.contains("WARC-Type: response") && $0.contains("WARC-Target-URI: \(url("/coded.txt"))\r\n")
        })
        #expect(record.contains("X-WebCache-Decoded-From: gzip\r\n"))
        #expect(!record.contains("Content-Encoding"))
        #expect(record.contains("Content-Length: \(String(repeating: "hello gzip ", count: 100).utf8.count)\r\n"))
        #expect(record.contains(String(repeating: "hello gzip ", count: 100)))
        let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", warc])
        #expect(check.exitCode == 0, "\(check.output)")
    }

    @Test(arguments: [204, 304])
    func aResponseWithoutContentIsExportedWithoutAContentLength(status: Int) async throws {
        // Given a store with a response of `status` without Content-Length (a 304 as an earlier import stored it)
        let path = folder.path("empty.sqlite")
        let url = "https://example.test/empty"
        try await withCacheStore(at: path) { store in
            let entry = CacheEntry(
                url: url, status: status, headers: ["Cache-Control": "max-age=600", "ETag": "\"e\""],
                requestTime: Date(), responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
            try await store.save(entry, body: Data())
        }
        let warc = folder.path("empty.warc")
        let har = folder.path("empty.har")

        // When
        let exportWARC = try await run("export", "--store", path, "--warc", warc)
        let exportHAR = try await run("export", "--store", path, "--har", har)
        let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", warc])
        let copy = folder.path("copy.sqlite")
        let imported = try await run("import", "--store", copy, warc, har)

        // Then
        #expect(exportWARC.exitCode == 0, "\(exportWARC.stderr)")
        #expect(exportHAR.exitCode == 0, "\(exportHAR.stderr)")
        #expect(check.exitCode == 0, "\(check.output)")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: warc)), as: UTF8.self)
        let records = text.components(separatedBy: "WARC/1.1\r\n")
        let record = try #require(records.first { $0.contains("WARC-Type: response") })
        let head = try #require(record.components(separatedBy: "\r\n\r\n").dropFirst().first)
        #expect(head.hasPrefix("HTTP/1.1 \(status) "), "\(head)")
        #expect(!head.lowercased().contains("content-length"), "\(head)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har)))
        let entries = ((object as? [String: Any])?["log"] as? [String: Any])?["entries"] as? [[String: Any]]
        let headers = try #require((entries?.first?["response"] as? [String: Any])?["headers"] as? [[String: String]])
        #expect(headers.map { $0["name"] ?? "" }.sorted() == ["Cache-Control", "ETag"])
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        let copied = try Self.entries(of: copy)
        // A cache does not store a 304 (RFC 9111 §3): import skips it.
        #expect(copied.map(\.entry.status) == (status == 304 ? [] : [status]))
        #expect(copied.allSatisfy { $0.entry.headers == ["Cache-Control": "max-age=600", "ETag": "\"e\""] })
    }

    /// RFC 9110 §8.6 lets a 304 carry the length of the 200 it stands for, as the gateway sends it: an
    /// archive keeps that length, not the empty body's. A cache does not store a 304 (RFC 9111 §3), so
    /// an import skips it and counts it.
    @Test func a304KeepsTheContentLengthOfThe200ItStandsForAndIsNotImported() async throws {
        // Given a store with a 304 as an earlier import stored it, declaring the length of its 200
        let path = folder.path("not-modified.sqlite")
        let fields: HTTPHeaders = ["Cache-Control": "max-age=600", "ETag": "\"e\"", "Content-Length": "1234"]
        try await withCacheStore(at: path) { store in
            let entry = CacheEntry(
                url: "https://example.test/unchanged", status: 304, headers: fields, requestTime: Date(),
                responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
            try await store.save(entry, body: Data())
        }
        let warc = folder.path("not-modified.warc")
        let har = folder.path("not-modified.har")

        // When
        let exportWARC = try await run("export", "--store", path, "--warc", warc)
        let exportHAR = try await run("export", "--store", path, "--har", har)
        let copies = [folder.path("from-warc.sqlite"), folder.path("from-har.sqlite")]
        let importWARC = try await run("import", "--store", copies[0], warc)
        let importHAR = try await run("import", "--store", copies[1], har)

        // Then
        for result in [exportWARC, exportHAR, importWARC, importHAR] {
            #expect(result.exitCode == 0, "\(result.stderr)")
        }
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: warc)), as: UTF8.self)
        #expect(text.contains("HTTP/1.1 304 Not Modified\r\nCache-Control: max-age=600\r\nETag: \"e\"\r\n"
            + "Content-Length: 1234\r\n\r\n"), "\(text)")
        let log = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])
        let entries = try #require((log["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let response = try #require(entries.first?["response"] as? [String: Any])
        #expect(response["status"] as? Int == 304)
        let headers = try #require(response["headers"] as? [[String: String]])
        #expect(headers.contains(["name": "Content-Length", "value": "1234"]), "\(headers)")
        // The WARC file's warcinfo record is skipped too.
        let skipped = [(importWARC, "2 records that are not HTTP responses"),
                       (importHAR, "1 record that is not an HTTP response")]
        for (result, records) in skipped {
            #expect(result.stdout == "Imported 0 entries (0 from revisit records, 0 B of bodies); skipped "
                + "\(records) to store; 0 damaged.\n")
        }
        for copy in copies {
            #expect(try Self.entries(of: copy).isEmpty, "\(copy)")
        }
    }

    @Test func aHARExportImportsAsTheSameEntries() async throws {
        try await preload()
        let original = try Self.entries(of: store)
        let har = folder.path("site.har")

        let export = try await run("export", "--store", store, "--har", har)
        let copy = folder.path("copy.sqlite")
        let imported = try await run("import", "--store", copy, har)

        #expect(export.exitCode == 0, "\(export.stderr)")
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har)))
        let entries = try #require(((object as? [String: Any])?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let binary = try #require(entries.first { ($0["request"] as? [String: Any])?["url"] as? String == url("/bytes.bin") })
        #expect(((binary["response"] as? [String: Any])?["content"] as? [String: Any])?["encoding"] as? String == "base64")
        // HAR times have milliseconds.
        Self.expectSameEntries(try Self.entries(of: copy), as: original, tolerance: 0.002)
    }

    @Test func aWACZImportsTheWARCFilesItHolds() async throws {
        try await preload()
        let warc = folder.path("data.warc.gz")
        _ = try await run("export", "--store", store, "--warc", warc)
        let wacz = folder.path("site.wacz")
        let script = """
            import zipfile, sys
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                z.write(sys.argv[2], 'archive/data.warc.gz')
                z.writestr('datapackage.json', '{"profile": "data-package", "resources": []}',
                           compress_type=zipfile.ZIP_DEFLATED)
            """
        let zip = try await ExternalTools.run("/usr/bin/python3", ["-c", script, wacz, warc])
        try #require(zip.exitCode == 0, "\(zip.error)")
        let copy = folder.path("copy.sqlite")

        let imported = try await run("import", "--store", copy, wacz)

        #expect(imported.exitCode == 0, "\(imported.stderr)")
        Self.expectSameEntries(try Self.entries(of: copy), as: try Self.entries(of: store), tolerance: 0.000_01)
    }

    @Test func aDeflatedWACZMemberWhoseFirstRecordIsAResponseImportsWhole() async throws {
        try await preload()
        let warc = folder.path("data.warc")
        _ = try await run("export", "--store", store, "--warc", warc)
        // Without its warcinfo record, the file starts with the page's response record.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: warc))
        let second = try #require(bytes.firstRange(of: Data("\r\nWARC/1.1\r\n".utf8), in: 1..<bytes.count))
        let noInfo = try folder.write(bytes[(second.lowerBound + 2)...], to: "noinfo.warc")
        let wacz = folder.path("deflated.wacz")
        let script = """
            import zipfile, sys
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                z.write(sys.argv[2], 'archive/data.warc')
            """
        let zip = try await ExternalTools.run("/usr/bin/python3", ["-c", script, wacz, noInfo])
        try #require(zip.exitCode == 0, "\(zip.error)")
        let copy = folder.path("copy.sqlite")

        let imported = try await run("import", "--store", copy, wacz)

        #expect(imported.exitCode == 0, "\(imported.stderr)")
        #expect(imported.stderr.isEmpty, "\(imported.stderr)")
        Self.expectSameEntries(try Self.entries(of: copy), as: try Self.entries(of: store), tolerance: 0.000_01)
    }

    @Test func aWARCWrittenByWgetImportsAndIsServedOffline() async throws {
        // Given a WARC that GNU wget wrote from the site
        let work = folder.path("wget")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let wget = try await ExternalTools.run(
            "/usr/bin/wget", ["-q", "-p", "--warc-file=site", "--no-warc-keep-log", url("/page.html")], in: work)
        try #require(wget.exitCode == 0, "wget: \(wget.error)")
        let copy = folder.path("copy.sqlite")

        // When
        let imported = try await run("import", "--store", copy, work + "/site.warc.gz")
        server.stop()
        let page = try await run("get", "--store", copy, "--policy", "cache-only", url("/page.html"))
        let image = try await run("get", "--store", copy, "--policy", "cache-only", url("/bytes.bin"))

        // Then
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        // The page, its six resources and robots.txt (a 404), which wget asks for first.
        #expect(imported.stdout.hasPrefix("Imported 8 entries"), "\(imported.stdout)")
        #expect(page.exitCode == 0, "\(page.stderr)")
        #expect(page.stdout == Self.page)
        #expect(page.stderr.hasPrefix("webcache: hit 200"))
        #expect(image.exitCode == 0)
        #expect(image.stdoutData == Self.binary)
    }
}
