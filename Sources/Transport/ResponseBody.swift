import FoundationEssentials

/// The content of a response as an asynchronous sequence of chunks, in order, as they arrive.
///
/// A body can be iterated once. Dropping every copy of it, or cancelling the task that iterates
/// it, cancels the transfer. Errors of the transfer after the head (a reset connection, a body
/// over the size limit) are thrown by the iteration.
///
/// ```swift
/// for try await chunk in response.body { hasher.update(chunk) }
/// ```
public struct ResponseBody: AsyncSequence, Sendable {
    /// Each element is the next piece of content.
    public typealias Element = Data

    /// Cancels the transfer when the last body or iterator referring to it goes away.
    final class Handle: Sendable {
        let channel: BodyChannel

        init(channel: BodyChannel) {
            self.channel = channel
        }

        deinit { channel.consumerCancelled() }
    }

    let handle: Handle

    package init(channel: BodyChannel) {
        handle = Handle(channel: channel)
    }

    /// A body that is already complete, holding `data` (for fake transports and tests).
    public init(_ data: Data) {
        self.init(channel: BodyChannel(complete: data))
    }

    /// Iterates the chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let handle: Handle

        /// The next chunk, or `nil` at the end.
        public mutating func next() async throws -> Data? {
            try await handle.channel.next()
        }
    }

    /// Creates the iterator; a body can be iterated once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: handle)
    }

    /// Runs `action` once the transfer has received the whole body, whether or not it has been read
    /// yet (at once if it already has); never if the transfer fails or is cancelled. It may run on
    /// the transport's thread: keep it short. A scheduler that limits transfers on the wire frees a
    /// slot here, while the body is still being consumed.
    public func whenReceived(_ action: @escaping @Sendable () -> Void) {
        handle.channel.whenReceived(action)
    }

    /// Reads the whole body into memory.
    /// - Throws: ``TransportError`` with code ``TransportError/Code/bodyTooLarge`` when it exceeds `limit` bytes.
    public func collect(upTo limit: Int = .max) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else {
                handle.channel.consumerCancelled()
                throw TransportError(
                    code: .bodyTooLarge, message: "The response body is larger than the limit of \(limit) bytes.")
            }
            data.append(chunk)
        }
        return data
    }

    /// Test hook: the most bytes that ever waited in the buffer between network and consumer.
    var maxBufferedBytes: Int { handle.channel.maxBufferedBytes }

    /// Test hook: the buffer size at which the producer is paused.
    var bufferLimit: Int { handle.channel.highWater }
}
