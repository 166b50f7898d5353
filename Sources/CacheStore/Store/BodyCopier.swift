import CSQLite
import FoundationEssentials

/// Copies a stored body into memory the caller owns, such as an HTTP server's send buffer: the bytes
/// go from SQLite's row straight into the caller's buffer, with no `Data` in between, and are checked
/// there (``BodyCheck``) before the copier reports them. A damaged chunk is therefore never reported
/// as copied: ``copy(into:)`` throws ``CacheStore/Error/Code/damagedBody`` in its place, and the
/// caller must treat the bytes in its buffer as garbage and the transfer as failed.
///
/// Like ``BodyChunkReader``, each chunk is read in its own short read, so memory stays flat whatever
/// the body's size; if the body is deleted meanwhile (its entry replaced, evicted or pruned),
/// ``copy(into:)`` throws ``CacheStore/Error/Code/bodyMissing``. A body stored before schema version
/// 4 has no chunk checksums and is compared with its SHA-256 when its last chunk is read, before
/// that chunk's bytes are reported: its damage is found by the call that would have copied them.
///
/// ```swift
/// var copier = store.bodyCopier(bodyID: entry.bodyID!)
/// while case let count = try copier.copy(into: buffer), count > 0 { send(buffer.prefix(count)) }
/// ```
public struct BodyCopier: Sendable {
    private let store: CacheStore
    private let bodyID: Int64
    private var seq: Int64 = 0
    private var check: BodyCheck?
    /// The checked rest of a chunk that was larger than the buffer it was asked into.
    private var pending = Data()
    private var finished = false

    init(store: CacheStore, bodyID: Int64) {
        self.store = store
        self.bodyID = bodyID
    }

    /// Copies the next bytes of the body into `buffer`: a whole chunk when it fits (a buffer of
    /// ``CacheStore/chunkSize`` bytes always holds one), else as much of it as fits.
    ///
    /// - Returns: How many bytes were copied; 0 after the last byte, once the whole body has proved sound.
    /// - Throws: ``CacheStore/Error`` when the body is gone or the read fails;
    ///   ``CacheStore/Error/Code/damagedBody`` when it is damaged.
    public mutating func copy(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        if !pending.isEmpty {
            let count = min(buffer.count, pending.count)
            pending.copyBytes(to: base.assumingMemoryBound(to: UInt8.self), count: count)
            pending = pending.count == count ? Data() : Data(pending.dropFirst(count))
            return count
        }
        guard !finished else { return 0 }
        if check == nil { check = try store.bodyCheck(bodyID: bodyID) }
        guard let chunkCount = check?.chunkCount, seq < chunkCount else {
            guard check?.isSound == true else { throw store.damagedBodyError(bodyID: bodyID) }
            finished = true
            return 0
        }
        let copied = try store.copyChunk(bodyID: bodyID, seq: seq, into: buffer)
        let chunk: Data
        switch copied.bytes {
        case .inBuffer(let count):
            chunk = Data(bytesNoCopy: base, count: count, deallocator: .none)
        case .tooLarge(let data):
            chunk = data
        }
        guard check?.add(chunk, seq: seq, checksum: copied.checksum) == true else {
            throw store.damagedBodyError(bodyID: bodyID)
        }
        seq += 1
        if seq == chunkCount {
            // The last bytes are reported only once the whole body has proved sound: a body without
            // chunk checksums is compared with its SHA-256 here, so its damage never looks like its end.
            guard check?.isSound == true else { throw store.damagedBodyError(bodyID: bodyID) }
            finished = true
        }
        if case .tooLarge(let data) = copied.bytes {
            pending = data
            return try copy(into: buffer)
        }
        return chunk.count
    }
}

extension CacheStore {
    /// A copier of body `bodyID` into buffers the caller owns (see ``BodyCopier``).
    public nonisolated func bodyCopier(bodyID: Int64) -> BodyCopier {
        BodyCopier(store: self, bodyID: bodyID)
    }

    /// Copies the whole body `bodyID` into `buffer` in one statement (one snapshot), each chunk
    /// checked where it lands; meant for bodies of one chunk, which need no second read.
    ///
    /// - Parameter buffer: exactly the body's size (``CacheEntry/bodySize``).
    /// - Throws: ``CacheStore/Error``; ``Error/Code/bodyMissing`` when the body is not stored;
    ///   ``Error/Code/damagedBody`` when its bytes are no longer those stored, or its size is not
    ///   the buffer's. The buffer's contents are then garbage.
    public nonisolated func copyBody(bodyID: Int64, into buffer: UnsafeMutableRawBufferPointer) throws {
        // The address crosses into the reader's closure as a number: the buffer is the caller's,
        // and the closure runs on the caller's thread before this returns.
        let address = UInt(bitPattern: buffer.baseAddress)
        let capacity = buffer.count
        let query = columns.wholeBodyQuery
        let outcome = try read("read body \(bodyID)") { connection in
            try Self.copyWholeBody(bodyID, to: address, capacity: capacity, query: query, connection)
        }
        switch outcome {
        case .missing:
            throw Error(code: .bodyMissing, message: "Body \(bodyID) is not in the cache store '\(path)'.")
        case .damaged:
            throw damagedBodyError(bodyID: bodyID)
        case .sound:
            return
        }
    }

    /// Copies body `bodyID` whole through `connection` into the `capacity` bytes at `address` (the
    /// caller's memory, given as a number so that it crosses into a reader's closure), each chunk
    /// checked where it lands. `query` is ``ReadableColumns/wholeBodyQuery``.
    static func copyWholeBody(
        _ bodyID: Int64, to address: UInt, capacity: Int, query: SQLQuery, _ connection: Connection
    ) throws -> BodyCopyOutcome {
        var offset = 0
        var fits = true
        let check = try forEachChunk(ofBody: bodyID, query: query, connection) { check, row in
            fits = fits && check.size == Int64(capacity)
                && copy(chunkIn: row, from: 3, to: address, capacity: capacity, offset: &offset, checking: &check)
        }
        guard let check else { return .missing }
        return fits && check.size == Int64(capacity) && check.isSound ? .sound : .damaged
    }

    /// Copies the chunks of the body that `check` was made for into the `capacity` bytes at `address`,
    /// as ``copyWholeBody(_:to:capacity:query:_:)`` does, for a read whose body record came with the
    /// entry's: whether they are the whole body, sound. `query` is ``ReadableColumns/chunksQuery``.
    static func copyChunks(
        _ check: BodyCheck, to address: UInt, capacity: Int, query: SQLQuery, _ connection: Connection
    ) throws -> Bool {
        guard check.size == Int64(capacity) else { return false }
        var check = check
        var offset = 0
        var fits = true
        try connection.forEachRow(query, [.integer(check.bodyID)]) { row in
            fits = fits
                && copy(chunkIn: row, from: 0, to: address, capacity: capacity, offset: &offset, checking: &check)
        }
        return fits && check.isSound
    }

    /// Copies the chunk of `row` (its seq, data and checksum from column `first` on) to `offset` bytes
    /// after `address` and adds it to `check` where it landed; `false`, copying nothing, when it does
    /// not fit in the `capacity` bytes.
    private static func copy(
        chunkIn row: Statement, from first: Int32, to address: UInt, capacity: Int, offset: inout Int,
        checking check: inout BodyCheck
    ) -> Bool {
        let count = Int(sqlite3_column_bytes(row.handle, first + 1))
        guard count <= capacity - offset, let target = UnsafeMutableRawPointer(bitPattern: address + UInt(offset))
        else { return false }
        if count > 0, let source = sqlite3_column_blob(row.handle, first + 1) {
            target.copyMemory(from: source, byteCount: count)
        }
        let landed = Data(bytesNoCopy: target, count: count, deallocator: .none)
        _ = check.add(landed, seq: row.int64(first), checksum: row.isNull(first + 2) ? nil : row.int64(first + 2))
        offset += count
        return true
    }

    /// Runs the one statement that reads body `bodyID` whole with its record (one snapshot),
    /// ``ReadableColumns/wholeBodyQuery``, and calls `chunk` with each chunk's row (columns: seq 3,
    /// data 4, checksum 5), in order, and the body's check made from the record. Body ids are never
    /// reused, so chunks found under `bodyID` belong to that body.
    ///
    /// - Returns: The check, with what `chunk` added to it; `nil` when no complete body has that id.
    static func forEachChunk(
        ofBody bodyID: Int64, query: SQLQuery, _ connection: Connection,
        _ chunk: (inout BodyCheck, Statement) throws -> Void
    ) throws -> BodyCheck? {
        var check: BodyCheck?
        try connection.forEachRow(query, [.integer(bodyID)]) { row in
            var current = check ?? BodyCheck(bodyID: bodyID, size: row.int64(0), chunkCount: row.int64(1),
                                             hash: row.blob(2))
            // A body without chunks (an empty one) has one row, with a NULL chunk.
            if !row.isNull(4) { try chunk(&current, row) }
            check = current
        }
        return check
    }

    /// What copying a whole body found.
    enum BodyCopyOutcome {
        /// No complete body row has that id.
        case missing
        /// The chunks are not those recorded, or not the size of the buffer.
        case damaged
        case sound
    }

    /// Where the bytes of one chunk went.
    fileprivate enum CopiedBytes: Sendable {
        /// Into the caller's buffer, this many.
        case inBuffer(Int)
        /// Not into the caller's buffer, which is smaller than the chunk: here they are.
        case tooLarge(Data)
    }

    /// Copies chunk `seq` of body `bodyID` into `buffer` when it fits, and returns its stored
    /// checksum (`nil` for a chunk written before schema version 4).
    ///
    /// - Throws: ``Error/Code/bodyMissing`` when the body is gone; ``Error/Code/damagedBody`` when
    ///   the body is there but the chunk is not.
    fileprivate nonisolated func copyChunk(
        bodyID: Int64, seq: Int64, into buffer: UnsafeMutableRawBufferPointer
    ) throws -> (bytes: CopiedBytes, checksum: Int64?) {
        let address = UInt(bitPattern: buffer.baseAddress)
        let capacity = buffer.count
        let checksumColumn = columns.chunkChecksum
        let copied = try read("read body \(bodyID)") { connection -> (CopiedBytes, Int64?)? in
            let statement = try connection.cachedStatement(
                sql: "SELECT rowid, length(data), \(checksumColumn) FROM body_chunk WHERE body_id = ? AND seq = ?"
            )
            statement.bind([.integer(bodyID), .integer(seq)])
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            let checksum = statement.isNull(2) ? nil : statement.int64(2)
            let count = Int(statement.int64(1))
            // Read from the row's pages while the statement still steps, in its snapshot: straight into
            // the buffer, where SQLite would first gather a large value in memory of its own.
            guard count <= capacity, let target = UnsafeMutableRawPointer(bitPattern: address) else {
                var data = Data(count: count)
                try data.withUnsafeMutableBytes { bytes in
                    try connection.readBlob(table: "body_chunk", column: "data", rowid: statement.int64(0),
                                            into: bytes.baseAddress, count: count)
                }
                return (.tooLarge(data), checksum)
            }
            try connection.readBlob(table: "body_chunk", column: "data", rowid: statement.int64(0), into: target,
                                    count: count)
            return (.inBuffer(count), checksum)
        }
        if let copied { return (copied.0, copied.1) }
        // Chunks go only with their body, so a body row without this chunk is damaged; without the
        // body row, its entry was replaced or removed meanwhile.
        _ = try bodyCheck(bodyID: bodyID)
        throw damagedBodyError(bodyID: bodyID)
    }
}
