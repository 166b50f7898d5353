import Archive
import CacheStore
import FoundationEssentials
import HTTPCore

/// Writes the selected entries of a store to a WARC 1.1 file: a `warcinfo` record, then per entry a
/// `response` record (or a `revisit` record when an earlier record holds the same body) followed by
/// its `request` record. A partial entry is written as a `206` response record for each of its parts,
/// each followed by its request for that range. Bodies are read chunk by chunk, twice: once for the
/// block digest that the header carries, once to write them.
///
/// An entry whose body cannot be read, or holds other bytes than its entry records, is reported with
/// its URL and left out (none of its records is written); the export goes on.
struct WARCExport {
    /// What was written.
    struct Summary: Sendable {
        var responses = 0
        var revisits = 0
        /// Partial entries, and the 206 response records of their parts.
        var partialEntries = 0
        var parts = 0
        /// Entries left out, each reported.
        var failed = 0
        var bodyBytes: Int64 = 0
        var fileBytes: Int64 = 0
    }

    let store: CacheStore
    let selection: ExportSelection
    /// The archive's path, whose name the `warcinfo` record gives and whose `.gz` asks for gzip.
    let path: String
    /// Where the bytes go until the archive is complete: ``path`` or a private name beside it.
    let writingPath: String
    /// Receives one line per entry left out: its URL and why.
    let report: (String) -> Void

    init(store: CacheStore, selection: ExportSelection, path: String, writingPath: String? = nil,
         report: @escaping (String) -> Void) {
        self.store = store
        self.selection = selection
        self.path = path
        self.writingPath = writingPath ?? path
        self.report = report
    }

    /// gzip level for `.gz` files: 1, as zlib's fastest level costs the least time per byte for
    /// archives whose bodies (images, fonts, compressed scripts) are mostly compressed already.
    static let compressionLevel: Int32 = 1

    func run(version: String) async throws -> Summary {
        let writer = try WARCWriter(
            path: writingPath, compressionLevel: path.hasSuffix(".gz") ? Self.compressionLevel : nil)
        var summary = Summary()
        let info = Data(
            """
            software: webcache/\(version)\r
            format: WARC File Format 1.1\r
            conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r
            description: Exported from a webcache store; bodies are as stored (see X-WebCache-Decoded-From).\r

            """.utf8)
        try writer.writeRecord(
            WARCHeader.warcinfo(
                recordID: WARCHeader.makeRecordID(), date: Date(),
                filename: URL(fileURLWithPath: path).lastPathComponent, length: info.count),
            block: info)
        // The first entry written with each body, for --page, whose entries are not in id order, and
        // for a body whose first entry in the store was left out.
        var written: [Int64: CacheEntry] = [:]
        var bodiesLeftOut = Set<Int64>()
        var firstEntries = FirstEntries()
        try await selection.forEachBatch(in: store) { batch in
            for entry in batch {
                // A signal stops the export between entries.
                try Task.checkCancellation()
                guard let bodyID = entry.bodyID, let hash = entry.bodyHash else { continue }
                do {
                    if entry.isPartial {
                        summary.parts += try writeParts(of: entry, to: writer)
                        summary.partialEntries += 1
                        summary.bodyBytes += entry.bodySize
                        continue
                    }
                    let listed = selection.pageURL != nil || bodiesLeftOut.contains(bodyID)
                    let original: CacheEntry?
                    if listed {
                        original = written[bodyID]
                    } else {
                        original = try firstEntries.first(withBodyID: bodyID, in: selection.scope, of: store).flatMap {
                            $0.id == entry.id ? nil : $0
                        }
                    }
                    let head = HTTPMessageHead(
                        status: entry.status, headers: ArchivedExchange.responseHeaders(of: entry)
                    ).serialized()
                    let responseID: String
                    if let original {
                        responseID = WARCHeader.makeRecordID()
                        try writeRevisit(entry, of: original, head: head, hash: hash, id: responseID, to: writer)
                        summary.revisits += 1
                    } else {
                        let response = try readResponse(
                            entry, head: head, bodyID: bodyID, length: entry.bodySize, payloadDigest: hash,
                            keepsBody: true)
                        try write(response, to: writer)
                        responseID = response.recordID
                        if listed { written[bodyID] = entry }
                        summary.responses += 1
                        summary.bodyBytes += entry.bodySize
                    }
                    try writeRequest(ArchivedExchange.requestHead(of: entry), for: entry, responseID: responseID,
                                     to: writer)
                } catch let failure as ExportFailure {
                    if !entry.isPartial { bodiesLeftOut.insert(bodyID) }
                    summary.failed += 1
                    report("\(entry.url): \(failure.reason)")
                }
            }
        }
        try writer.close()
        summary.fileBytes = writer.bytesWritten
        return summary
    }

    /// The first entry of the scope that has each body, as the store tells it, kept for the bodies
    /// asked for last. Finding it walks the body's entries in id order, so for a body shared by many
    /// entries of other hosts or partitions (the same redirect page on every host) asking again for
    /// each of its entries in the scope made an export quadratic; the most recent ``capacity`` answers
    /// are kept, so that memory stays flat however many bodies there are.
    struct FirstEntries {
        static let capacity = 1_024
        private var answers: [Int64: CacheEntry?] = [:]
        /// The bodies answered, oldest first, the next to forget at `next` once full.
        private var order: [Int64] = []
        private var next = 0

        /// ``CacheStore/firstEntry(withBodyID:in:)``, kept.
        mutating func first(withBodyID bodyID: Int64, in scope: EntryScope, of store: CacheStore) throws
            -> CacheEntry?
        {
            if let answer = answers[bodyID] { return answer }
            let answer = try store.firstEntry(withBodyID: bodyID, in: scope)
            if order.count < Self.capacity {
                order.append(bodyID)
            } else {
                answers[order[next]] = nil
                order[next] = bodyID
                next = (next + 1) % Self.capacity
            }
            answers[bodyID] = .some(answer)
            return answer
        }
    }

    /// Bodies up to this size are read once and kept while their record is written; larger ones are
    /// read twice (for the block digest the header carries, then to write them), so memory stays flat.
    static let bodyHeldInMemory: Int64 = 4 << 20

    /// Writes the parts of partial `entry`, each as a 206 response record and its request; returns
    /// how many. Every part is read (for its digests) before the first is written, so that a part
    /// that cannot be read leaves the entry out whole.
    private func writeParts(of entry: CacheEntry, to writer: WARCWriter) throws -> Int {
        let parts = try ExportSelection.parts(of: entry, in: store)
        let responses = try parts.map { part in
            let head = HTTPMessageHead(
                status: 206, headers: ArchivedExchange.responseHeaders(of: entry, part: part)
            ).serialized()
            return try readResponse(
                entry, head: head, bodyID: part.bodyID, length: part.length, payloadDigest: nil, keepsBody: false)
        }
        for (part, response) in zip(parts, responses) {
            try write(response, to: writer)
            try writeRequest(ArchivedExchange.requestHead(of: entry, part: part), for: entry,
                             responseID: response.recordID, to: writer)
        }
        return parts.count
    }

    /// A response record whose body has been read once: its header, and the body's chunks when kept.
    private struct ReadResponse {
        var header: WARCHeader
        var head: Data
        var bodyID: Int64
        /// The body, when small enough to keep; otherwise it is read again to be written.
        var body: [Data]?
        var compressible: Bool

        var recordID: String { header.recordID }
    }

    /// Reads stored body `bodyID`, of `length` bytes, for a response record of `entry` whose block is
    /// `head` and the body: computes the block digest, and the payload digest (the body's SHA-256)
    /// when not given. Keeps the body when `keepsBody` and it is at most ``bodyHeldInMemory``.
    ///
    /// - Throws: ``ExportFailure`` when the body cannot be read or does not hold `length` bytes.
    private func readResponse(
        _ entry: CacheEntry, head: Data, bodyID: Int64, length: Int64, payloadDigest: Data?, keepsBody: Bool
    ) throws -> ReadResponse {
        var blockHasher = SHA256()
        blockHasher.update(head)
        var payloadHasher = payloadDigest == nil ? SHA256() : nil
        let keeps = keepsBody && length <= Self.bodyHeldInMemory
        var kept: [Data] = []
        var read: Int64 = 0
        try readBody(bodyID) { chunk in
            blockHasher.update(chunk)
            payloadHasher?.update(chunk)
            read += Int64(chunk.count)
            if keeps, read <= length { kept.append(chunk) }
        }
        guard read == length else {
            throw ExportFailure(reason: "The stored body holds \(read) bytes, not the \(length) its entry records.")
        }
        var header = WARCHeader.http(
            type: "response", recordID: WARCHeader.makeRecordID(), targetURI: entry.url, date: entry.responseTime,
            blockLength: Int64(head.count) + length, blockDigest: blockHasher.finalize(),
            payloadDigest: payloadDigest ?? payloadHasher?.finalize())
        for field in ArchivedExchange.extensionFields(of: entry) {
            header.fields.append(name: field.name, value: field.value)
        }
        return ReadResponse(header: header, head: head, bodyID: bodyID, body: keeps ? kept : nil,
                            compressible: WARCWriter.isCompressible(entry.headers))
    }

    /// Writes a response record read by ``readResponse(_:head:bodyID:length:payloadDigest:keepsBody:)``.
    ///
    /// - Throws: ``ExportFailure`` when the body cannot be read again as it was (nothing of the record
    ///   is then in the file); what writing the file throws.
    private func write(_ response: ReadResponse, to writer: WARCWriter) throws {
        do {
            try writer.beginRecord(response.header, compressible: response.compressible)
            try writer.writeBlock(response.head)
            if let body = response.body {
                for chunk in body { try writer.writeBlock(chunk) }
            } else {
                try readBody(response.bodyID) { try writer.writeBlock($0) }
            }
            try writer.endRecord()
        } catch let failure as ExportFailure {
            try writer.discardRecord()
            throw failure
        } catch let error as ArchiveError {
            // The body changed between the two reads; the writer left the record out.
            throw ExportFailure(reason: error.reason)
        }
    }

    /// Calls `body` with each chunk of stored body `bodyID`, in order.
    ///
    /// - Throws: ``ExportFailure`` when a chunk cannot be read; what `body` throws.
    private func readBody(_ bodyID: Int64, _ body: (Data) throws -> Void) throws {
        var reader = store.bodyChunks(bodyID: bodyID)
        while let chunk = try ExportFailure.reading({ try reader.next() }) {
            try body(chunk)
        }
    }

    private func writeRevisit(
        _ entry: CacheEntry, of original: CacheEntry, head: Data, hash: Data, id: String, to writer: WARCWriter
    ) throws {
        var header = WARCHeader.http(
            type: "revisit", recordID: id, targetURI: entry.url, date: entry.responseTime,
            blockLength: Int64(head.count), blockDigest: SHA256.hash(head), payloadDigest: hash,
            refersTo: (original.url, original.responseTime))
        for field in ArchivedExchange.extensionFields(of: entry) { header.fields.append(name: field.name, value: field.value) }
        try writer.writeRecord(header, block: head)
    }

    private func writeRequest(
        _ request: HTTPMessageHead, for entry: CacheEntry, responseID: String, to writer: WARCWriter
    ) throws {
        let block = request.serialized()
        let header = WARCHeader.http(
            type: "request", recordID: WARCHeader.makeRecordID(), targetURI: entry.url, date: entry.requestTime,
            blockLength: Int64(block.count), blockDigest: SHA256.hash(block), payloadDigest: nil,
            concurrentTo: responseID)
        try writer.writeRecord(header, block: block)
    }
}
