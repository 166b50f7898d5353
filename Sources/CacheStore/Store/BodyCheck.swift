import FoundationEssentials
import HTTPCore

/// Checks a stored body while its chunks are read, in order: each must be the next in sequence, and
/// together they must make the body's recorded chunk count and size.
///
/// A chunk written by schema version 4 or later carries a CRC-32 (``ChunkChecksum``), which is
/// checked as the chunk is added, so a damaged chunk is found before it is handed over. The chunks of
/// a body written before carry none; they are hashed as they go by and the body is compared with
/// its recorded SHA-256 at the end. A body's chunks carry a checksum all or none, so a mix is damage.
struct BodyCheck: Sendable {
    /// The body's id, which each chunk's checksum covers.
    let bodyID: Int64
    /// The size recorded in the body row.
    let size: Int64
    /// The number of chunks recorded in the body row.
    let chunkCount: Int64
    /// The SHA-256 recorded in the body row.
    let hash: Data
    /// Hashes the chunks of a body without checksums; started by the first such chunk, so that a
    /// read of checksummed chunks makes no digest context.
    private var hasher: SHA256?
    private var bytesRead: Int64 = 0
    private var nextSeq: Int64 = 0
    /// Whether the body's chunks carry checksums; the first chunk decides.
    private var checksummed: Bool?
    private var damaged = false

    init(bodyID: Int64, size: Int64, chunkCount: Int64, hash: Data) {
        self.bodyID = bodyID
        self.size = size
        self.chunkCount = chunkCount
        self.hash = hash
    }

    /// Adds the next chunk read, chunk number `seq` with its stored `checksum`; returns `false` when it
    /// is not the chunk expected next, intact, and then for every chunk after it.
    mutating func add(_ chunk: Data, seq: Int64, checksum: Int64?) -> Bool {
        guard !damaged else { return false }
        let carriesChecksum = checksum != nil
        if checksummed == nil { checksummed = carriesChecksum }
        bytesRead += Int64(chunk.count)
        if seq != nextSeq || seq >= chunkCount || bytesRead > size || carriesChecksum != checksummed {
            damaged = true
        } else if let checksum {
            damaged = ChunkChecksum(of: chunk).value(bodyID: bodyID, seq: seq) != checksum
        } else {
            if hasher == nil { hasher = SHA256() }
            hasher?.update(chunk)
        }
        nextSeq += 1
        return !damaged
    }

    /// Whether the chunks added so far are the whole body as recorded.
    var isSound: Bool {
        guard !damaged, nextSeq == chunkCount, bytesRead == size else { return false }
        // A body without chunks is empty, and its SHA-256 that of nothing.
        return checksummed == true || (hasher ?? SHA256()).finalize() == hash
    }
}
