import FoundationEssentials

/// Reads a body chunk by chunk, so that memory stays flat whatever the body's size, and checks each
/// chunk before it returns it (``BodyCheck``).
///
/// Each chunk is read in its own short read; if the body is deleted meanwhile (the entry was
/// replaced, evicted or pruned), ``next()`` throws ``CacheStore/Error/Code/bodyMissing``.
///
/// A damaged chunk is never returned: ``next()`` throws ``CacheStore/Error/Code/damagedBody`` in its
/// place. The chunks returned before it were sound, but a caller that passes them on must treat that
/// error as the end of a failed transfer, not of a short body. A body stored before schema version 4
/// has no chunk checksums and is compared with its SHA-256 at the end instead: its damage is found
/// by the call that would have returned `nil`.
///
/// ```swift
/// var reader = store.bodyChunks(bodyID: entry.bodyID!)
/// while let chunk = try reader.next() { try output.write(contentsOf: chunk) }
/// ```
public struct BodyChunkReader: Sendable {
    private let store: CacheStore
    private let bodyID: Int64
    private var seq: Int64 = 0
    private var check: BodyCheck?
    private var finished = false

    init(store: CacheStore, bodyID: Int64) {
        self.store = store
        self.bodyID = bodyID
    }

    /// The next chunk, or `nil` after the last one once the whole body has proved sound.
    ///
    /// - Throws: ``CacheStore/Error`` when the body is gone or the read fails;
    ///   ``CacheStore/Error/Code/damagedBody`` when the body is damaged, in place of the damaged chunk.
    public mutating func next() throws -> Data? {
        guard !finished else { return nil }
        if check == nil { check = try store.bodyCheck(bodyID: bodyID) }
        guard let chunkCount = check?.chunkCount, seq < chunkCount else {
            guard check?.isSound == true else { throw store.damagedBodyError(bodyID: bodyID) }
            finished = true
            return nil
        }
        let chunk = try store.chunk(bodyID: bodyID, seq: seq)
        guard check?.add(chunk.data, seq: seq, checksum: chunk.checksum) == true else {
            throw store.damagedBodyError(bodyID: bodyID)
        }
        seq += 1
        return chunk.data
    }
}
