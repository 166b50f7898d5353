import Foundation
import HTTPCore

/// Checks a stored body while its chunks are read: their bytes must add up to the body's recorded
/// size and hash to its SHA-256. Hashing as the bytes go by costs no second read of the body.
struct BodyCheck: Sendable {
    /// The size recorded in the body row.
    let size: Int64
    /// The SHA-256 recorded in the body row.
    let hash: Data
    private var hasher = SHA256()
    private var bytesRead: Int64 = 0

    init(size: Int64, hash: Data) {
        self.size = size
        self.hash = hash
    }

    /// Adds the next chunk read.
    mutating func add(_ chunk: Data) {
        hasher.update(chunk)
        bytesRead += Int64(chunk.count)
    }

    /// Whether the chunks added so far are the whole body as recorded.
    var isSound: Bool {
        bytesRead == size && hasher.finalize() == hash
    }
}
