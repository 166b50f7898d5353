import Archive
import CacheStore
import Foundation
import HTTPCore

/// Writes the selected entries of a store to a WARC 1.1 file: a `warcinfo` record, then per entry a
/// `response` record (or a `revisit` record when an earlier record holds the same body) followed by
/// its `request` record. Bodies are read chunk by chunk, twice: once for the block digest that the
/// header carries, once to write them.
struct WARCExport {
    /// What was written.
    struct Summary: Sendable {
        var responses = 0
        var revisits = 0
        var bodyBytes: Int64 = 0
        var fileBytes: Int64 = 0
    }

    let store: CacheStore
    let selection: ExportSelection
    let path: String

    /// gzip level for `.gz` files: 1, as zlib's fastest level costs the least time per byte for
    /// archives whose bodies (images, fonts, compressed scripts) are mostly compressed already.
    static let compressionLevel: Int32 = 1

    func run(version: String) async throws -> Summary {
        let writer = try WARCWriter(
            path: path, compressionLevel: path.hasSuffix(".gz") ? Self.compressionLevel : nil)
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
        // For --page, whose entries are not in id order: the first entry written with each body.
        var written: [Int64: CacheEntry] = [:]
        try await selection.forEachBatch(in: store) { batch in
            for entry in batch {
                guard let bodyID = entry.bodyID, let hash = entry.bodyHash else { continue }
                let original: CacheEntry?
                if selection.pageURL != nil {
                    original = written[bodyID]
                    if original == nil { written[bodyID] = entry }
                } else {
                    original = try store.firstEntry(withBodyID: bodyID, in: selection.scope).flatMap {
                        $0.id == entry.id ? nil : $0
                    }
                }
                let responseID = WARCHeader.makeRecordID()
                let head = HTTPMessageHead(
                    status: entry.status, headers: ArchivedExchange.responseHeaders(of: entry)
                ).serialized()
                if let original {
                    try writeRevisit(entry, of: original, head: head, hash: hash, id: responseID, to: writer)
                    summary.revisits += 1
                } else {
                    try writeResponse(entry, head: head, hash: hash, id: responseID, to: writer)
                    summary.responses += 1
                    summary.bodyBytes += entry.bodySize
                }
                try writeRequest(for: entry, responseID: responseID, to: writer)
            }
        }
        try writer.close()
        summary.fileBytes = writer.bytesWritten
        return summary
    }

    /// Bodies up to this size are read once and kept while their record is written; larger ones are
    /// read twice (for the block digest the header carries, then to write them), so memory stays flat.
    static let bodyHeldInMemory: Int64 = 4 << 20

    private func writeResponse(_ entry: CacheEntry, head: Data, hash: Data, id: String, to writer: WARCWriter) throws {
        var blockHasher = SHA256()
        blockHasher.update(head)
        var held: [Data] = []
        var reader = store.bodyChunks(bodyID: entry.bodyID!)
        while let chunk = try reader.next() {
            blockHasher.update(chunk)
            if entry.bodySize <= Self.bodyHeldInMemory { held.append(chunk) }
        }
        var header = WARCHeader.http(
            type: "response", recordID: id, targetURI: entry.url, date: entry.responseTime,
            blockLength: Int64(head.count) + entry.bodySize, blockDigest: blockHasher.finalize(), payloadDigest: hash)
        for field in ArchivedExchange.extensionFields(of: entry) { header.fields.append(name: field.name, value: field.value) }
        try writer.beginRecord(header, compressible: WARCWriter.isCompressible(entry.headers))
        try writer.writeBlock(head)
        if entry.bodySize <= Self.bodyHeldInMemory {
            for chunk in held { try writer.writeBlock(chunk) }
        } else {
            reader = store.bodyChunks(bodyID: entry.bodyID!)
            while let chunk = try reader.next() { try writer.writeBlock(chunk) }
        }
        try writer.endRecord()
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

    private func writeRequest(for entry: CacheEntry, responseID: String, to writer: WARCWriter) throws {
        let block = ArchivedExchange.requestHead(of: entry).serialized()
        let header = WARCHeader.http(
            type: "request", recordID: WARCHeader.makeRecordID(), targetURI: entry.url, date: entry.requestTime,
            blockLength: Int64(block.count), blockDigest: SHA256.hash(block), payloadDigest: nil,
            concurrentTo: responseID)
        try writer.writeRecord(header, block: block)
    }
}
