import Archive
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Bad input for `import`: each damaged record or entry is reported with its offset (or entry
/// number), the rest is imported, and what the store held before stays.
@Suite(.timeLimit(.minutes(2)))
final class DamagedArchiveTests: ArchiveSite, @unchecked Sendable {
    /// A store that already holds one entry, which no import may lose.
    private func makeTarget() async throws -> String {
        let path = folder.path("target.sqlite")
        try await withCacheStore(at: path) { store in
            let entry = CacheEntry(
                url: "https://kept.test/", status: 200, headers: ["Content-Type": "text/plain"], requestTime: Date(),
                responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
            try await store.save(entry, body: Data("kept".utf8))
        }
        return path
    }

    /// The URLs stored at `path`, sorted.
    private func urls(at path: String) throws -> [String] {
        try Self.entries(of: path).map(\.entry.url)
    }

    /// Checks the store at `path` still holds the entry it had and passes verify.
    private func expectSound(_ path: String) async throws {
        #expect(try urls(at: path).contains("https://kept.test/"))
        let verify = try await run("verify", "--store", path)
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    @Test func aTruncatedGzipMemberIsReportedAndTheRecordsBeforeItImported() async throws {
        try await preload()
        let warc = folder.path("site.warc.gz")
        _ = try await run("export", "--store", store, "--warc", warc)
        let index = try await ExternalTools.run(try ExternalTools.warcio, ["index", "-f", "offset,warc-type", warc])
        let offsets = index.output.split(separator: "\n").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: String])?["offset"]
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: warc))
        // Cut inside the last record's member: the request of the last entry.
        bytes.removeLast(20)
        let truncated = try folder.write(bytes, to: "truncated.warc.gz")
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, truncated)

        #expect(result.exitCode == 1)
        let last = try #require(offsets.last)
        #expect(result.stderr.contains("\(truncated)@\(last): The gzip member is truncated: the file ends inside it.\n"),
                "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 7 entries"), "\(result.stdout)")
        try await expectSound(target)
    }

    @Test func aWrongRecordLengthIsReportedAndTheOtherRecordsImported() async throws {
        try await preload()
        let warc = folder.path("site.warc")
        _ = try await run("export", "--store", store, "--warc", warc)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: warc))
        // The stylesheet's response record says it is 5 bytes longer than it is.
        let (offset, lengthRange) = try #require(Self.contentLength(ofResponseTo: url("/style.css"), in: bytes))
        let length = try #require(Int(String(decoding: bytes[lengthRange], as: UTF8.self)))
        bytes.replaceSubrange(lengthRange, with: Data(String(length + 5).utf8))
        let damaged = try folder.write(bytes, to: "damaged.warc")
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, damaged)

        #expect(result.exitCode == 1)
        #expect(result.stderr.hasPrefix("\(damaged)@\(offset): The record's block is not followed by an empty line"),
                "\(result.stderr)")
        #expect(try !urls(at: target).contains(url("/style.css")))
        #expect(try urls(at: target).contains(url("/page.html")))
        #expect(result.stdout.hasPrefix("Imported 6 entries"), "\(result.stdout)")
        try await expectSound(target)
    }

    /// In an uncompressed WARC file: the offset of the response record for `url`, and the range of
    /// the digits of its Content-Length.
    private static func contentLength(ofResponseTo url: String, in bytes: Data) -> (Int, Range<Int>)? {
        let target = Data("WARC-Target-URI: \(url)\r\n".utf8)
        var search = bytes.startIndex
        while let found = bytes[search...].firstRange(of: target) {
            search = found.upperBound
            guard let start = bytes[..<found.lowerBound].lastRange(of: Data("WARC/1.1\r\n".utf8))?.lowerBound,
                let end = bytes[start...].firstRange(of: Data("\r\n\r\n".utf8))?.lowerBound,
                String(decoding: bytes[start..<end], as: UTF8.self).contains("WARC-Type: response"),
                let field = bytes[start..<end].firstRange(of: Data("\r\nContent-Length: ".utf8))
            else { continue }
            let digitsEnd = bytes[field.upperBound...].firstRange(of: Data("\r\n".utf8))?.lowerBound ?? end
            return (start - bytes.startIndex, field.upperBound..<digitsEnd)
        }
        return nil
    }

    @Test func aWARCWithoutHTTPRecordsIsSkippedAndCounted() async throws {
        let path = folder.path("notes.warc.gz")
        let writer = try WARCFixture.writer(path)
        for type in ["warcinfo", "resource", "metadata"] {
            try WARCFixture.write(type: type, uri: type == "resource" ? "dns:example.test" : nil, block: "a: b\r\n", to: writer)
        }
        try writer.close()
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, path)

        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "Imported 0 entries (0 from revisit records, 0 B of bodies); skipped 3 records that "
            + "are not HTTP responses to store; 0 damaged.\n")
        try await expectSound(target)
    }

    /// The preloaded site exported as HAR, its entries changed by `edit`, written as `name`.
    private func editedHAR(_ name: String, _ edit: (inout [[String: Any]]) throws -> Void) async throws -> String {
        try await preload()
        let har = folder.path("site.har")
        _ = try await run("export", "--store", store, "--har", har)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har)))
            as? [String: Any])
        var log = try #require(object["log"] as? [String: Any])
        var entries = try #require(log["entries"] as? [[String: Any]])
        try edit(&entries)
        log["entries"] = entries
        object["log"] = log
        return try folder.write(try JSONSerialization.data(withJSONObject: object), to: name)
    }

    @Test func aHAREntryWithInvalidBase64IsReportedByNumberAndTheOthersImported() async throws {
        var index = 0
        let damaged = try await editedHAR("damaged.har") { entries in
            index = try #require(entries.firstIndex {
                (($0["response"] as? [String: Any])?["content"] as? [String: Any])?["encoding"] as? String == "base64"
            })
            var response = try #require(entries[index]["response"] as? [String: Any])
            var content = try #require(response["content"] as? [String: Any])
            content["text"] = "this is *not* base64!"
            response["content"] = content
            entries[index]["response"] = response
        }
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, damaged)

        #expect(result.exitCode == 1)
        #expect(result.stderr.hasPrefix(
            "\(damaged)#entry \(index): The response content is marked base64 but is not valid base64.\n"), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 6 entries"), "\(result.stdout)")
        try await expectSound(target)
    }

    /// An entry's time is what its response's age is counted from: one that is not a date is not
    /// stored as if fetched now.
    @Test func aHAREntryWithoutAReadableTimeIsReportedByNumberAndTheOthersImported() async throws {
        let damaged = try await editedHAR("undated.har") { entries in entries[1]["startedDateTime"] = "yesterday" }
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, damaged)

        #expect(result.exitCode == 1)
        #expect(result.stderr.hasPrefix("\(damaged)#entry 1: The entry's startedDateTime 'yesterday' is not a date, "
            + "so its response's age cannot be known.\n"), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 6 entries"), "\(result.stdout)")
        try await expectSound(target)
    }

    /// A HAR entry's request URL, as a test writes it.
    enum RequestURL: Sendable {
        case text(String)
        case null
        case missing
    }

    /// An entry's response is stored under its request's URL: one without a URL is not stored under
    /// none or skipped in silence.
    @Test(arguments: [
        (RequestURL.text("http://exa mple.test/"), "The request URL 'http://exa mple.test/' is not a URL, so its "
            + "response belongs to no resource."),
        (.text("not a url"), "The request URL 'not a url' is not an absolute URL, so its response belongs to no "
            + "resource."),
        (.text("/style.css"), "The request URL '/style.css' is not an absolute URL, so its response belongs to no "
            + "resource."),
        (.text(""), "The request has no URL, so its response belongs to no resource."),
        (.text("http:///style.css"), "The request URL 'http:///style.css' has no host, so its response belongs to "
            + "no resource."),
        (.null, "The entry's 'request.url' is null."),
        (.missing, "The entry has no 'request.url'."),
    ])
    func aHAREntryWhoseRequestURLIsNotAURLIsReportedByNumberAndTheOthersImported(
        url: RequestURL, reason: String
    ) async throws {
        let damaged = try await editedHAR("unnamed.har") { entries in
            var request = try #require(entries[1]["request"] as? [String: Any])
            switch url {
            case .text(let text): request["url"] = text
            case .null: request["url"] = NSNull()
            case .missing: request["url"] = nil
            }
            entries[1]["request"] = request
        }
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, damaged)

        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(damaged)#entry 1: \(reason)\n"
            + "Error: 1 record was damaged and not imported; everything else was imported.\n", "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 6 entries"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("; skipped 0 records that are not HTTP responses to store; 1 damaged.\n"),
                "\(result.stdout)")
        try await expectSound(target)
    }

    /// A browser records requests for `data:` URLs among the others: they are URLs, of no HTTP response.
    @Test func aHAREntryForAnotherSchemeIsSkippedAndCounted() async throws {
        let data = try await editedHAR("data.har") { entries in
            var request = try #require(entries[1]["request"] as? [String: Any])
            request["url"] = "data:text/plain,hello"
            entries[1]["request"] = request
        }
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, data)

        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Imported 6 entries"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("; skipped 1 record that is not an HTTP response to store; 0 damaged.\n"),
                "\(result.stdout)")
    }

    @Test func aWARCResponseWhoseTargetHasNoHostIsReportedByOffset() async throws {
        let path = folder.path("nohost.warc")
        let writer = try WARCWriter(path: path, compressionLevel: nil)
        var offsets: [Int64] = []
        for target in ["http:///a.txt", "https://example.test/b.txt"] {
            let block = Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nCache-Control: max-age=60\r\n\r\nhi".utf8)
            offsets.append(writer.bytesWritten)
            try writer.writeRecord(
                WARCHeader.http(
                    type: "response", recordID: WARCHeader.makeRecordID(), targetURI: target, date: Date(),
                    blockLength: Int64(block.count), blockDigest: SHA256.hash(block), payloadDigest: nil),
                block: block)
        }
        try writer.close()
        let target = try await makeTarget()

        let result = try await run("import", "--store", target, path)

        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(path)@\(offsets[0]): The request URL 'http:///a.txt' has no host, so its "
            + "response belongs to no resource.\n"
            + "Error: 1 record was damaged and not imported; everything else was imported.\n")
        #expect(try urls(at: target) == ["https://example.test/b.txt", "https://kept.test/"])
        try await expectSound(target)
    }

    @Test func aFileThatIsNoArchiveIsReportedAndNothingChanges() async throws {
        let target = try await makeTarget()
        let notes = try folder.write(Data("just some text\n".utf8), to: "notes.warc")
        let notHAR = try folder.write(Data("{\"not\": \"a har\"}".utf8), to: "x.har")

        let result = try await run("import", "--store", target, notes, notHAR)

        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(notes): The file does not start with a WARC record, so it is not a WARC file.\n"
            + "\(notHAR): The file has no log.entries array, so it is not a HAR file.\n"
            + "Error: 2 files could not be imported; everything else was imported.\n")
        #expect(result.stdout.hasSuffix("; 0 damaged; 2 files not imported.\n"), "\(result.stdout)")
        try await expectSound(target)
    }

    /// Imports `damaged`, then a HAR file of `https://good.test/`, into a store that holds an entry;
    /// an import still running after a minute is killed, which fails the test.
    private func importThenGoodFile(_ damaged: String) async throws -> (result: WebcacheRunner.Result, target: String) {
        let good = try folder.write(
            try HARFixture.document([("https://good.test/", 200, ["Cache-Control": "max-age=600"], "good")]),
            to: "good.har")
        let target = try await makeTarget()
        let result = try await webcache.run(["import", "--store", target, damaged, good], killedAfter: .seconds(60))
        return (result, target)
    }

    @Test func aWACZWhoseDirectoryRunsPastItsEndIsReportedAndTheNextFileImported() async throws {
        let damaged = folder.path("damaged.wacz")
        var bytes = try await ZipFixture.write(ZipFixture.warc(records: 3), deflated: false, to: damaged, in: folder)
        let directory = try ZipFixture.directoryOffset(in: bytes)
        // The first entry's extra-field length.
        ZipFixture.set(UInt16(60_000), at: directory + 30, in: &bytes)
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let (result, target) = try await importThenGoodFile(damaged)

        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(damaged)@\(directory): The zip central directory is damaged.\n"
            + "Error: 1 file could not be imported; everything else was imported.\n")
        #expect(try urls(at: target) == ["https://good.test/", "https://kept.test/"])
        try await expectSound(target)
    }

    @Test func aHARWithAStrayBraceKeepsTheEntriesBeforeItAndTheNextFileIsImported() async throws {
        var bytes = try HARFixture.document([("https://stray.test/", 200, ["Cache-Control": "max-age=600"], "x")])
        let arrayEnd = try #require(bytes.lastRange(of: Data("]".utf8)))
        bytes.insert(UInt8(ascii: "}"), at: arrayEnd.lowerBound)
        let damaged = try folder.write(bytes, to: "stray.har")

        let (result, target) = try await importThenGoodFile(damaged)

        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(damaged)#entry 1: The file is damaged here: a '}' stands where an entry or the end "
            + "of log.entries should.\nError: 1 record was damaged and not imported; everything else was imported.\n")
        #expect(try urls(at: target) == ["https://good.test/", "https://kept.test/", "https://stray.test/"])
        try await expectSound(target)
    }

    @Test func aWACZMemberDamagedPartWayKeepsTheRecordsBeforeTheDamageAndTheNextFileIsImported() async throws {
        let damaged = folder.path("damaged.wacz")
        try await ZipFixture.writeDamagedDeflate(ZipFixture.warc(records: 400), to: damaged, in: folder)

        let (result, target) = try await importThenGoodFile(damaged)

        #expect(result.exitCode == 1)
        let member = "\(damaged):archive/data.warc@"
        #expect(result.stderr.hasPrefix(member), "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "The zip member 'archive/data.warc' is damaged").count == 2,
                "\(result.stderr)")
        // Inflating may yield some wrong bytes before zlib sees the damage; the records they spoil are
        // reported each, but not the hundreds of records after the damage, which cannot be read.
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count <= 10, "\(result.stderr)")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix(member) }, "\(result.stderr)")
        let stored = try urls(at: target)
        #expect(stored.contains("https://good.test/"))
        #expect(stored.contains("https://kept.test/"))
        #expect(stored.filter { $0.hasPrefix("https://wacz.test/") }.count >= 100, "\(stored.count) entries")
        try await expectSound(target)
    }
}
