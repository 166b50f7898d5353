import CDeflate
import CSQLite
import CacheStore
import Foundation
import HTTPCore

/// Hit lookups against a raw SELECT, writes per second, pruning 100,000 entries, and streaming
/// large bodies.
struct StoreBenchmark {
    let directory: String?
    /// Whether to measure the hit lookups (a) alone.
    var hitsOnly = false

    private static let lookupIterations = 50_000
    private static let writeCount = 10_000
    private static let pruneCount = 100_000
    private static let streamedBodyCount = 100
    private static let streamedBodySize = 1_048_576
    private static let streamedWriteSize = 16_384

    func run() async throws {
        let folder = URL(fileURLWithPath: directory ?? NSTemporaryDirectory())
            .appendingPathComponent("webcache-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var rows: [(String, String)] = []
        let hits = try await measureHits(path: folder.appendingPathComponent("hits.sqlite").path)
        rows.append(
            ("(a) hit lookup, lookup() (entry + 10 KB body, hit recorded)", String(format: "%.2f µs", hits.lookup)))
        rows.append(("(a) hit lookup, entry() + bodyData() (no hit recorded)", String(format: "%.2f µs", hits.sync)))
        rows.append(("(a) raw SELECT of the same row + body chunk, C API", String(format: "%.2f µs", hits.raw)))
        rows.append(("(a) ratio lookup() / raw (goal ≤ 2)", String(format: "%.2f", hits.lookup / hits.raw)))
        if !hitsOnly {
            for (writers, name) in [(1, "one writer"), (8, "8 writers at once")] {
                let writes = try await measureWrites(
                    path: folder.appendingPathComponent("writes-\(writers).sqlite").path, writers: writers)
                rows.append(
                    ("(b) writes per second, 10,000 entries of 1 KiB, \(name)", String(format: "%.0f /s", writes)))
            }
            let prune = try await measurePrune(path: folder.appendingPathComponent("prune.sqlite").path)
            rows.append(("(c) fill 100,000 entries (1 KiB bodies)", String(format: "%.2f s", prune.fill)))
            rows.append(("(c) prune 100,000 entries (one transaction)", String(format: "%.2f s", prune.prune)))
            let streamed = try await measureStreaming(path: folder.appendingPathComponent("stream.sqlite").path)
            rows.append(
                ("(d) stream 100 bodies of 1 MiB (16 KiB writes), save, close", String(format: "%.2f s", streamed)))
        }

        let width = rows.map(\.0.count).max() ?? 0
        print("| " + "measure".padding(toLength: width, withPad: " ", startingAt: 0) + " | value |")
        print("|-" + String(repeating: "-", count: width) + "-|-------|")
        for (name, value) in rows {
            print("| " + name.padding(toLength: width, withPad: " ", startingAt: 0) + " | \(value) |")
        }
    }

    // MARK: - (a) Hits

    private func measureHits(path: String) async throws -> (lookup: Double, sync: Double, raw: Double) {
        let store = try CacheStore(path: path)
        let url = "https://bench.test/page.html"
        var generator = ContentGenerator(seed: 42)
        let now = Date()
        let entry = CacheEntry(
            url: url, status: 200,
            headers: [
                "Content-Type": "text/html", "Cache-Control": "max-age=600", "ETag": "\"abc\"",
                "Date": HTTPDate.format(now), "Last-Modified": HTTPDate.format(now), "Vary": "Accept-Encoding",
            ],
            requestTime: now, responseTime: now, freshUntil: now.addingTimeInterval(600)
        )
        try await store.save(entry, body: generator.bytes(count: 10_240))

        var checksum = 0
        for _ in 0..<1_000 { checksum &+= try await store.lookup(url: url)?.body.count ?? 0 }
        var start = DispatchTime.now()
        for _ in 0..<Self.lookupIterations {
            checksum &+= try await store.lookup(url: url)?.body.count ?? 0
        }
        let lookup = microseconds(since: start) / Double(Self.lookupIterations)

        start = DispatchTime.now()
        for _ in 0..<Self.lookupIterations {
            if let found = try store.entry(url: url), let bodyID = found.bodyID {
                checksum &+= try store.bodyData(bodyID: bodyID).count
            }
        }
        let sync = microseconds(since: start) / Double(Self.lookupIterations)

        let raw = try RawReader(path: path)
        for _ in 0..<1_000 { checksum &+= raw.read(url: url) }
        start = DispatchTime.now()
        for _ in 0..<Self.lookupIterations {
            checksum &+= raw.read(url: url)
        }
        let rawTime = microseconds(since: start) / Double(Self.lookupIterations)
        precondition(checksum > 0, "The benchmark read nothing.")
        try await store.close()
        return (lookup, sync, rawTime)
    }

    // MARK: - (b) Writes

    /// `writers` tasks save at once, each every `writers`-th entry; with several, as a preload's
    /// transfers do, their writes share transactions.
    private func measureWrites(path: String, writers: Int) async throws -> Double {
        let store = try CacheStore(path: path)
        var generator = ContentGenerator(seed: 7)
        let bodies = (0..<Self.writeCount).map { _ in generator.bytes(count: 1_024) }
        let start = DispatchTime.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for index in stride(from: writer, to: Self.writeCount, by: writers) {
                        try await store.save(makeEntry(index: index, host: "writes.test"), body: bodies[index])
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = microseconds(since: start) / 1_000_000
        let stored = try store.totals().entryCount
        precondition(stored == Self.writeCount, "\(stored) of the \(Self.writeCount) writes were stored.")
        try await store.close()
        return Double(Self.writeCount) / seconds
    }

    // MARK: - (c) Prune

    private func measurePrune(path: String) async throws -> (fill: Double, prune: Double) {
        let store = try CacheStore(path: path)
        var generator = ContentGenerator(seed: 9)
        var start = DispatchTime.now()
        for index in 0..<Self.pruneCount {
            try await store.save(makeEntry(index: index, host: "prune.test"), body: generator.bytes(count: 1_024))
        }
        let fill = microseconds(since: start) / 1_000_000
        start = DispatchTime.now()
        let result = try await store.prune(PruneCriteria(host: "prune.test"))
        let prune = microseconds(since: start) / 1_000_000
        precondition(result.entryCount == Self.pruneCount, "Pruning removed \(result.entryCount) entries.")
        try await store.close()
        return (fill, prune)
    }

    // MARK: - (d) Streamed bodies

    /// Streams distinct large bodies through a `BodyWriter` and saves each; the time includes the
    /// final checkpoint at close, so that every byte has reached the store file.
    private func measureStreaming(path: String) async throws -> Double {
        let store = try CacheStore(path: path)
        var generator = ContentGenerator(seed: 11)
        var content = generator.bytes(count: Self.streamedBodySize)
        let start = DispatchTime.now()
        for index in 0..<Self.streamedBodyCount {
            content.replaceSubrange(0..<8, with: withUnsafeBytes(of: UInt64(index)) { Data($0) })
            var writer = store.makeBodyWriter()
            var offset = 0
            while offset < content.count {
                let end = min(offset + Self.streamedWriteSize, content.count)
                try await writer.write(content.subdata(in: offset..<end))
                offset = end
            }
            try await store.save(makeEntry(index: index, host: "stream.test"), body: writer)
        }
        try await store.close()
        return microseconds(since: start) / 1_000_000
    }

    private func makeEntry(index: Int, host: String) -> CacheEntry {
        let now = Date()
        return CacheEntry(
            url: "https://\(host)/item/\(index)", status: 200,
            headers: ["Content-Type": "application/octet-stream", "Cache-Control": "max-age=60"],
            requestTime: now, responseTime: now, freshUntil: now.addingTimeInterval(60)
        )
    }

    private func microseconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000
    }
}

/// The same row read straight through the SQLite C API: the baseline for a hit.
final class RawReader {
    private var db: OpaquePointer?
    private var entryStatement: OpaquePointer?
    private var chunkStatement: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw SQLiteError(extendedCode: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)))
        }
        let entrySQL = """
            SELECT e.id, e.partition, e.method, e.url, e.host, e.vary_key, e.status, e.headers, e.request_time, \
            e.response_time, e.fresh_until, e.stale_until, e.stored_at, e.last_access, e.hit_count, e.pinned, \
            e.body_id, e.body_size, b.hash FROM entry e JOIN body b ON b.id = e.body_id \
            WHERE e.partition = ? AND e.method = ? AND e.url = ? AND e.vary_key = ?
            """
        sqlite3_prepare_v2(db, entrySQL, -1, &entryStatement, nil)
        sqlite3_prepare_v2(
            db, "SELECT data, seq, checksum FROM body_chunk WHERE body_id = ? ORDER BY seq", -1, &chunkStatement, nil)
    }

    deinit {
        sqlite3_finalize(entryStatement)
        sqlite3_finalize(chunkStatement)
        sqlite3_close(db)
    }

    /// Reads every column (copying text and blobs) and the body in one snapshot; returns the body size.
    /// With `checkingChunks`, each chunk is checked against its stored CRC-32 as the store's reads
    /// check it (the CRC-32 of its bytes carried on over its body id and sequence number); a chunk
    /// that fails ends the body there.
    func read(url: String, checkingChunks: Bool = false) -> Int {
        sqlite3_reset(entryStatement)
        sqlite3_bind_text(entryStatement, 1, "guest", -1, csqlite_transient())
        sqlite3_bind_text(entryStatement, 2, "GET", -1, csqlite_transient())
        sqlite3_bind_text(entryStatement, 3, url, -1, csqlite_transient())
        sqlite3_bind_text(entryStatement, 4, "", -1, csqlite_transient())
        guard sqlite3_step(entryStatement) == SQLITE_ROW else { return 0 }
        var texts: [String] = []
        for column in [1, 2, 3, 4, 5, 7] as [Int32] {
            texts.append(String(cString: sqlite3_column_text(entryStatement, column)))
        }
        var numbers = 0.0
        for column in [0, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] as [Int32] {
            numbers += sqlite3_column_double(entryStatement, column)
        }
        let hash = Data(
            bytes: sqlite3_column_blob(entryStatement, 18), count: Int(sqlite3_column_bytes(entryStatement, 18)))
        let bodyID = sqlite3_column_int64(entryStatement, 16)
        // The entry's statement stays open until the body is read: both are read in one snapshot, as a
        // hit reads them, with one read transaction's locks instead of two.
        defer { sqlite3_reset(entryStatement) }
        sqlite3_reset(chunkStatement)
        sqlite3_bind_int64(chunkStatement, 1, bodyID)
        var body = Data()
        while sqlite3_step(chunkStatement) == SQLITE_ROW {
            // Each chunk's bytes copied once, straight from SQLite's buffer.
            let count = Int(sqlite3_column_bytes(chunkStatement, 0))
            if count > 0, let bytes = sqlite3_column_blob(chunkStatement, 0) {
                if checkingChunks {
                    var place = (bodyID.littleEndian, sqlite3_column_int64(chunkStatement, 1).littleEndian)
                    let crc = withUnsafeBytes(of: &place) { placeBytes in
                        libdeflate_crc32(libdeflate_crc32(0, bytes, count), placeBytes.baseAddress, placeBytes.count)
                    }
                    guard Int64(crc) == sqlite3_column_int64(chunkStatement, 2) else { break }
                }
                body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
            }
        }
        return body.count + hash.count + texts.count + (numbers > 0 ? 1 : 0)
    }
}
