import Foundation

/// A response body delivered in chunks as they become available, from the network or the store.
///
/// Single pass: iterate it once. Stopping early (breaking out of the loop, or dropping the body)
/// cancels a network transfer and leaves nothing partial in the store.
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = Data

    private let source: @Sendable () -> AsyncIterator

    /// A body produced by `next`, which returns `nil` at the end.
    init(_ makeIterator: @escaping @Sendable () -> AsyncIterator) {
        self.source = makeIterator
    }

    /// A body already held in memory.
    public init(data: Data) {
        self.source = {
            var delivered = data.isEmpty
            return AsyncIterator {
                if delivered { return nil }
                delivered = true
                return data
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        source()
    }

    /// Reads the whole body into memory.
    /// - Parameter limit: the most bytes to accept; more throws ``WebCacheError/tooLarge``.
    public func collect(upTo limit: Int = .max) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else {
                throw WebCacheError(.tooLarge, "The response body is larger than \(limit) bytes.")
            }
            data.append(chunk)
        }
        return data
    }

    /// Pulls the next chunk; `nil` at the end.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let nextChunk: () async throws -> Data?

        public mutating func next() async throws -> Data? {
            try await nextChunk()
        }
    }
}
