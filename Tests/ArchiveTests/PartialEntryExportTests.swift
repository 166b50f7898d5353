import Archive
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `export` of what a store holds besides sound complete entries: a partial entry (stored from 206
/// responses) is written as a 206 for each of its parts, and an entry whose body cannot be read or is
/// not what the entry records is reported by URL and left out, while the rest is exported.
@Suite(.timeLimit(.minutes(2)))
final class PartialEntryExportTests: ArchiveSite, @unchecked Sendable {
    /// Every record of the WARC file at `path`, with its block.
    private static func records(of path: String) async throws -> [(header: WARCHeader, block: Data)] {
        let reader = try await WARCReader(source: FileByteSource(path: path))
        var records: [(header: WARCHeader, block: Data)] = []
        while let record = try await reader.nextRecord() {
            var block = Data()
            while let piece = try await reader.readBlock() { block.append(piece) }
            records.append((record.header, block))
        }
        return records
    }

    @Test(arguments: ["parts.warc", "parts.warc.gz"])
    func aPartialEntryIsExportedAsA206ResponseRecordForEachPart(name: String) async throws {
        // Given
        try await storeParts()
        let warc = folder.path(name)

        // When
        let export = try await run("export", "--store", store, "--warc", warc)
        let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", "-v", warc])

        // Then
        #expect(export.exitCode == 0, "\(export.stderr)")
        #expect(export.stdout == "Exported 2 entries (0 as revisit records, 1 partial entry as 2 parts) and "
            + "2.0 KiB of bodies to '\(warc)'.\n")
        #expect(check.exitCode == 0, "warcio check: \(check.output) \(check.error)")
        #expect(!check.output.contains("fail"), "\(check.output)")
        let records = try await Self.records(of: warc)
        let responses = records.filter { $0.header.type == "response" && $0.header.targetURI == url("/ranged.bin") }
        #expect(responses.count == 2)
        for (record, first) in zip(responses, Self.partStarts) {
            let (head, start) = try #require(try HTTPMessageHead.parse(record.block))
            #expect(head.status == 206)
            #expect(head.headers["Content-Range"] == "bytes \(first)-\(first + 999)/\(Self.ranged.count)")
            #expect(head.headers.values(for: "Content-Length") == ["1000"])
            #expect(Data(record.block[start...]) == Self.ranged.subdata(in: first..<(first + 1_000)))
            #expect(record.header.fields["WARC-Payload-Digest"]
                == WARCDigest.sha256Label(SHA256.hash(Self.ranged.subdata(in: first..<(first + 1_000)))))
        }
        let requests = records.filter { $0.header.type == "request" && $0.header.targetURI == url("/ranged.bin") }
        let ranges = try requests.map { try #require(try HTTPMessageHead.parse($0.block)).head.headers["Range"] }
        #expect(ranges == Self.partStarts.map { "bytes=\($0)-\($0 + 999)" })
        // The empty text's body is the one the partial entry points at: it is still written whole.
        let empty = records.filter { $0.header.targetURI == url("/empty.txt") }.map { $0.header.type }
        #expect(empty == ["response", "request"])
    }

    @Test func aPartialEntryIsExportedAsA206HAREntryForEachPart() async throws {
        // Given
        try await storeParts()
        let har = folder.path("parts.har")

        // When
        let export = try await run("export", "--store", store, "--har", har)

        // Then
        #expect(export.exitCode == 0, "\(export.stderr)")
        #expect(export.stdout == "Exported 2 entries (1 partial entry as 2 parts) and 2.0 KiB of bodies to '\(har)'.\n")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har)))
        let log = (object as? [String: Any])?["log"] as? [String: Any]
        let entries = try #require(log?["entries"] as? [[String: Any]])
        let parts = entries.filter { ($0["request"] as? [String: Any])?["url"] as? String == url("/ranged.bin") }
        #expect(parts.count == 2)
        for (part, first) in zip(parts, Self.partStarts) {
            let response = try #require(part["response"] as? [String: Any])
            let fields = try #require(response["headers"] as? [[String: String]])
            func values(_ name: String) -> [String] { fields.filter { $0["name"] == name }.compactMap { $0["value"] } }
            #expect(response["status"] as? Int == 206)
            #expect(values("Content-Range") == ["bytes \(first)-\(first + 999)/\(Self.ranged.count)"])
            #expect(values("Content-Length") == ["1000"])
            let text = try #require((response["content"] as? [String: Any])?["text"] as? String)
            #expect(Data(base64Encoded: text) == Self.ranged.subdata(in: first..<(first + 1_000)))
            let request = try #require((part["request"] as? [String: Any])?["headers"] as? [[String: String]])
            #expect(request.contains { $0["name"] == "Range" && $0["value"] == "bytes=\(first)-\(first + 999)" })
        }
    }

    @Test(arguments: ["site.warc.gz", "site.har"])
    func anEntryWhoseBodyIsNotWhatItRecordsIsReportedAndTheRestExported(name: String) async throws {
        // Given the stylesheet's entry recording 5 bytes more than its body holds, as in a damaged store
        try await preload()
        let css = url("/style.css")
        let damage = try await ExternalTools.run(
            "/usr/bin/sqlite3", [store, "UPDATE entry SET body_size = body_size + 5 WHERE url = '\(css)'"])
        try #require(damage.exitCode == 0, "\(damage.error)")
        let output = folder.path(name)

        // When
        let export = try await run("export", "--store", store, name.hasSuffix(".har") ? "--har" : "--warc", output)
        let copy = folder.path("copy.sqlite")
        let imported = try await run("import", "--store", copy, output)

        // Then
        let length = Self.stylesheet.utf8.count
        #expect(export.exitCode == 1)
        #expect(export.stderr == "\(css): The stored body holds \(length) bytes, not the \(length + 5) its entry "
            + "records.\nError: 1 entry could not be exported; '\(output)' holds the rest.\n")
        #expect(export.stdout.hasPrefix("Exported 6 entries"), "\(export.stdout)")
        if name.hasSuffix(".warc.gz") {
            let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", output])
            #expect(check.exitCode == 0, "\(check.output)")
        }
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        let urls = try Self.entries(of: copy).map(\.entry.url)
        #expect(urls.count == 6 && !urls.contains(css), "\(urls)")
    }

    @Test func anEntrySharingTheBodyOfOneLeftOutIsWrittenWithTheBodyNotAsARevisit() async throws {
        // Given the two images with the same bytes, the first stored recording a byte more than it holds
        try await preload()
        let images = try Self.entries(of: store).map(\.entry).filter { $0.url.hasSuffix(".svg") }
            .sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        try #require(images.count == 2 && images[0].bodyID == images[1].bodyID)
        let (first, second) = (images[0].url, images[1].url)
        let damage = try await ExternalTools.run(
            "/usr/bin/sqlite3", [store, "UPDATE entry SET body_size = body_size + 1 WHERE url = '\(first)'"])
        try #require(damage.exitCode == 0, "\(damage.error)")
        let warc = folder.path("site.warc")

        // When
        let export = try await run("export", "--store", store, "--warc", warc)
        let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", warc])
        let copy = folder.path("copy.sqlite")
        let imported = try await run("import", "--store", copy, warc)

        // Then
        #expect(export.exitCode == 1)
        #expect(export.stderr.hasPrefix("\(first): The stored body holds "), "\(export.stderr)")
        #expect(export.stdout.hasPrefix("Exported 6 entries (0 as revisit records) and "), "\(export.stdout)")
        #expect(check.exitCode == 0, "\(check.output)")
        let types = try await Self.records(of: warc).filter { $0.header.targetURI?.hasSuffix(".svg") == true }
            .map { "\($0.header.type) \($0.header.targetURI ?? "")" }
        #expect(types == ["response \(second)", "request \(second)"])
        #expect(imported.exitCode == 0, "\(imported.stderr)")
        let copied = try Self.entries(of: copy).first { $0.entry.url == second }
        #expect(copied?.body == Data(Self.image.utf8))
    }

    @Test(arguments: ["parts.warc", "parts.har"])
    func aPartialEntryWithADamagedPartIsReportedAndLeftOutWhole(name: String) async throws {
        // Given the second part's bytes zeroed in the file
        try await storeParts()
        let damage = try await ExternalTools.run("/usr/bin/sqlite3", [
            store, "UPDATE body_chunk SET data = zeroblob(length(data)) "
                + "WHERE body_id = (SELECT body_id FROM entry_part WHERE first = \(Self.partStarts[1]))",
        ])
        try #require(damage.exitCode == 0, "\(damage.error)")
        let output = folder.path(name)

        // When
        let export = try await run("export", "--store", store, name.hasSuffix(".har") ? "--har" : "--warc", output)

        // Then
        #expect(export.exitCode == 1)
        #expect(export.stderr.hasPrefix("\(url("/ranged.bin")): "), "\(export.stderr)")
        #expect(export.stderr.contains("damaged"), "\(export.stderr)")
        #expect(export.stderr.hasSuffix(".\nError: 1 entry could not be exported; '\(output)' holds the rest.\n"))
        #expect(export.stdout.hasPrefix("Exported 1 entry "), "\(export.stdout)")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self)
        #expect(!text.contains(url("/ranged.bin")))
        #expect(text.contains(url("/empty.txt")))
        if name.hasSuffix(".warc") {
            let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", output])
            #expect(check.exitCode == 0, "\(check.output)")
        }
    }
}
