import Foundation

/// Reads a body chunk by chunk, so that memory stays flat whatever the body's size, and checks it
/// against its recorded size and SHA-256 as the chunks go by.
///
/// Each chunk is read in its own short read; if the body is deleted meanwhile (the entry was
/// replaced, evicted or pruned), ``next()`` throws ``CacheStore/Error/Code/bodyMissing``.
///
/// The check can only end once the last chunk is read: when the body no longer matches its SHA-256,
/// the call that would have returned `nil` throws ``CacheStore/Error/Code/damagedBody`` instead. The
/// chunks returned before cannot be taken back, so a caller that passes them on must treat that
/// error as the end of a failed transfer, not of a short body.
///
/// ```swift
/// var reader = store.bodyChunks(bodyID: entry.bodyID!)
/// while let chunk = try reader.next() { try output.write(contentsOf: chunk) }
/// ```
public struct BodyChunkReader: Sendable {
    private let store: CacheStore
    private let bodyID: Int64
    private var seq: Int64 = 0
    private var chunkCount: Int64?
    private var check: BodyCheck?
    private var checked = false

    init(store: CacheStore, bodyID: Int64) {
        self.store = store
        self.bodyID = bodyID
    }

    /// The next chunk, or `nil` after the last one once the body has matched its SHA-256.
    ///
    /// - Throws: ``CacheStore/Error`` when the body is gone or the read fails;
    ///   ``CacheStore/Error/Code/damagedBody`` at the end when the body no longer matches its SHA-256.
    public mutating func next() throws -> Data? {
        if chunkCount == nil {
            let record = try store.bodyRecord(bodyID: bodyID)
            chunkCount = record.chunkCount
            check = record.check
        }
        guard let chunkCount, seq < chunkCount else {
            if !checked {
                guard check?.isSound == true else { throw store.damagedBodyError(bodyID: bodyID) }
                checked = true
            }
            return nil
        }
        let chunk = try store.chunk(bodyID: bodyID, seq: seq)
        check?.add(chunk)
        seq += 1
        return chunk
    }
}
