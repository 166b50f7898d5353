import FoundationEssentials
import HTTPCore

/// Streams a body into the store chunk by chunk before its entry is saved.
///
/// Each full chunk (``CacheStore/chunkSize``) is committed as it arrives, in the writer's next
/// transaction, straight as a final chunk of a provisional body owned by the writer's staging row
/// (a token, this process's id and the time), and the SHA-256 is computed incrementally, so memory
/// stays flat whatever the size and no byte is written twice. ``CacheStore/save(_:body:pageEdges:)`` then
/// completes the body (or shares an identical one) and links the entry to it in one transaction.
/// A provisional body is never visible as an entry; if the process dies first, the next open
/// collects it.
///
/// ```swift
/// var writer = store.makeBodyWriter()
/// for try await chunk in response.body { try await writer.write(chunk) }
/// let saved = try await store.save(entry, body: writer)
/// ```
public struct BodyWriter: Sendable {
    let store: CacheStore
    let token: String
    private(set) var hasher = SHA256()
    private var cutter = ChunkCutter()
    private(set) var stagedChunks: Int64 = 0
    private(set) var size: Int64 = 0

    init(store: CacheStore) {
        self.store = store
        self.token = store.makeStagingToken()
    }

    /// The number of bytes written so far.
    public var byteCount: Int64 { size }

    /// Appends `data` to the body, staging every full chunk as ``ChunkCutter`` cuts it: each byte is
    /// copied once on its way to SQLite (the first 32 KiB of a chunk of several pieces twice at most).
    ///
    /// - Throws: ``CacheStore/Error`` when staging fails.
    public mutating func write(_ data: Data) async throws {
        hasher.update(data)
        size += Int64(data.count)
        for chunk in cutter.cut(data) {
            try await store.stage(token: token, seq: stagedChunks, chunk: chunk)
            stagedChunks += 1
        }
    }

    /// The bytes not yet staged: the body's last chunk once every piece is written.
    var pending: Data { cutter.pending }

    /// Drops the staged chunks without saving an entry.
    ///
    /// - Throws: ``CacheStore/Error`` when the provisional body cannot be deleted.
    public func discard() async throws {
        try await store.discardStaging(token: token)
    }
}
