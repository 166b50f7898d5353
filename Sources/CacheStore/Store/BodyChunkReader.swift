import Foundation

/// Reads a body chunk by chunk, so that memory stays flat whatever the body's size.
///
/// Each chunk is read in its own short read; if the body is deleted meanwhile (the entry was
/// replaced, evicted or pruned), ``next()`` throws ``CacheStore/Error/Code/bodyMissing``.
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

    init(store: CacheStore, bodyID: Int64) {
        self.store = store
        self.bodyID = bodyID
    }

    /// The next chunk, or `nil` after the last one.
    ///
    /// - Throws: ``CacheStore/Error`` when the body is gone or the read fails.
    public mutating func next() throws -> Data? {
        if chunkCount == nil {
            chunkCount = try store.chunkCount(bodyID: bodyID)
        }
        guard let chunkCount, seq < chunkCount else { return nil }
        let chunk = try store.chunk(bodyID: bodyID, seq: seq)
        seq += 1
        return chunk
    }
}
