import Foundation
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
    private(set) var pending = Data()
    private(set) var stagedChunks: Int64 = 0
    private(set) var size: Int64 = 0

    init(store: CacheStore) {
        self.store = store
        self.token = store.makeStagingToken()
    }

    /// The number of bytes written so far.
    public var byteCount: Int64 { size }

    /// Appends `data` to the body, staging every full chunk.
    ///
    /// - Throws: ``CacheStore/Error`` when staging fails.
    public mutating func write(_ data: Data) async throws {
        hasher.update(data)
        size += Int64(data.count)
        if pending.isEmpty {
            pending = data
        } else {
            if pending.count + data.count > Self.growthStart {
                // One allocation for the chunk instead of a copy at every doubling.
                pending.reserveCapacity(CacheStore.chunkSize)
            }
            pending.append(data)
        }
        while pending.count >= CacheStore.chunkSize {
            // Slices share the bytes: a chunk is not copied before SQLite binds it.
            let end = pending.startIndex + CacheStore.chunkSize
            try await store.stage(token: token, seq: stagedChunks, chunk: pending[..<end])
            stagedChunks += 1
            pending = pending[end...]
        }
    }

    /// The pending size past which room for a whole chunk is reserved; below it, small bodies keep
    /// small buffers.
    private static let growthStart = 32 * 1024

    /// Drops the staged chunks without saving an entry.
    ///
    /// - Throws: ``CacheStore/Error`` when the provisional body cannot be deleted.
    public func discard() async throws {
        try await store.discardStaging(token: token)
    }
}
