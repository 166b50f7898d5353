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
    /// The room of the buffer `pending` was gathered into; 0 while it is a piece as written.
    private var pendingCapacity = 0

    init(store: CacheStore) {
        self.store = store
        self.token = store.makeStagingToken()
    }

    /// The number of bytes written so far.
    public var byteCount: Int64 { size }

    /// Appends `data` to the body, staging every full chunk.
    ///
    /// Each byte is copied at most once: a piece that starts a chunk is kept as it is (a body of one
    /// piece is never copied), a whole chunk inside a piece is staged as a slice of it, and the bytes
    /// of a chunk made of several pieces are gathered into one buffer, which is handed to SQLite.
    ///
    /// - Throws: ``CacheStore/Error`` when staging fails.
    public mutating func write(_ data: Data) async throws {
        hasher.update(data)
        size += Int64(data.count)
        var piece = data
        while !piece.isEmpty {
            if pending.isEmpty {
                if piece.count < CacheStore.chunkSize {
                    pending = piece
                    pendingCapacity = 0
                    return
                }
                let end = piece.startIndex + CacheStore.chunkSize
                try await stage(piece[..<end])
                piece = piece[end...]
                continue
            }
            let take = min(CacheStore.chunkSize - pending.count, piece.count)
            if pending.count + take > pendingCapacity {
                gather(room: pending.count + take)
            }
            let split = piece.startIndex + take
            pending.append(piece[..<split])
            piece = piece[split...]
            if pending.count == CacheStore.chunkSize {
                try await stage(pending)
                pending = Data()
                pendingCapacity = 0
            }
        }
    }

    /// Moves the pending bytes into a buffer of their own with room for at least `room` bytes: a
    /// small one while the body is small, else a whole chunk, so that the buffer grows once at most.
    private mutating func gather(room: Int) {
        let capacity = room <= Self.smallBuffer ? Self.smallBuffer : CacheStore.chunkSize
        var buffer = Data(capacity: capacity)
        buffer.append(pending)
        pending = buffer
        pendingCapacity = capacity
    }

    private mutating func stage(_ chunk: Data) async throws {
        try await store.stage(token: token, seq: stagedChunks, chunk: chunk)
        stagedChunks += 1
    }

    /// The buffer a body of several pieces starts with; past it, a whole chunk is reserved.
    private static let smallBuffer = 32 * 1024

    /// Drops the staged chunks without saving an entry.
    ///
    /// - Throws: ``CacheStore/Error`` when the provisional body cannot be deleted.
    public func discard() async throws {
        try await store.discardStaging(token: token)
    }
}
