import FoundationEssentials

/// Cuts a body that arrives in pieces into whole chunks of ``CacheStore/chunkSize`` bytes, copying
/// each byte once: a piece that starts a chunk is kept as it is (a body of one piece is never
/// copied), a whole chunk inside a piece is cut as a slice of it, and the bytes of a chunk made of
/// several pieces are gathered into one buffer. That buffer starts small and grows once at most, to a
/// whole chunk, so the first 32 KiB of such a chunk may be copied a second time.
struct ChunkCutter: Sendable {
    /// The bytes of the chunk being filled: the body's last chunk once every piece is in.
    private(set) var pending = Data()
    /// The room of the buffer ``pending`` was gathered into; 0 while it is a piece as given.
    private var capacity = 0

    /// Adds `piece`; returns the chunks it completed, in order (slices of the piece, or buffers of
    /// their own).
    mutating func cut(_ piece: Data) -> [Data] {
        var chunks: [Data] = []
        var rest = piece
        while !rest.isEmpty {
            if pending.isEmpty {
                if rest.count < CacheStore.chunkSize {
                    pending = rest
                    capacity = 0
                    break
                }
                let end = rest.startIndex + CacheStore.chunkSize
                chunks.append(rest[..<end])
                rest = rest[end...]
                continue
            }
            let take = min(CacheStore.chunkSize - pending.count, rest.count)
            if pending.count + take > capacity { gather(room: pending.count + take) }
            let split = rest.startIndex + take
            pending.append(rest[..<split])
            rest = rest[split...]
            if pending.count == CacheStore.chunkSize {
                chunks.append(pending)
                pending = Data()
                capacity = 0
            }
        }
        return chunks
    }

    /// Moves the pending bytes into a buffer of their own with room for at least `room` bytes: a
    /// small one while the body is small, else a whole chunk.
    private mutating func gather(room: Int) {
        let size = room <= Self.smallBuffer ? Self.smallBuffer : CacheStore.chunkSize
        var buffer = Data(capacity: size)
        buffer.append(pending)
        pending = buffer
        capacity = size
    }

    /// The buffer a chunk of several pieces starts with while the body is small; past it, a whole chunk.
    private static let smallBuffer = 32 * 1024
}
