import FoundationEssentials
import Synchronization

/// Hands out one chunk once, then `nil`: the body of a response already held in memory.
final class ChunkOnce: Sendable {
    private let chunk: Mutex<Data?>

    init(_ data: Data) {
        chunk = Mutex(data.isEmpty ? nil : data)
    }

    func take() -> Data? {
        chunk.withLock { value in
            defer { value = nil }
            return value
        }
    }
}
