import Dispatch
import FoundationEssentials
import Synchronization

/// A request body that is still arriving: a bounded buffer between one producer, which blocks or is
/// woken while the buffer is full, and one consumer (a transport), which never blocks.
///
/// So a large upload is never held whole in memory: the producer is held back until the consumer
/// has sent what is buffered. A stream is read once; a request carrying one cannot be sent again.
/// Equal only to itself.
public final class RequestBodyStream: Sendable, Hashable {
    /// What one read gave.
    public enum ReadResult: Equatable, Sendable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing is buffered yet; ``whenReadable(_:)`` tells when to read again.
        case wouldBlock
        /// The body is complete.
        case end
        /// The body will not be complete: the request must be aborted.
        case failed
    }

    /// What a write that does not wait gave (``write(_:orWhenSpace:)``).
    public enum WriteResult: Equatable, Sendable {
        /// The bytes were appended.
        case written
        /// The buffer is full: nothing was appended, and the wake-up given runs once there is room.
        case full
        /// The stream was cancelled: nothing more will be read.
        case cancelled
    }

    /// The body could not be read to its end (``collect()``).
    public struct Failure: Error, Sendable {}

    /// The declared length (`Content-Length`), if any; without one the body is sent chunked.
    public let length: Int64?
    /// The most unread bytes buffered before the producer waits.
    public let capacity: Int

    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        var finished = false
        var cancelled = false
        /// Wakes the producer waiting for room.
        var space: (@Sendable () -> Void)?
        var readable: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Creates an empty stream for a body of `length` bytes (`nil`: unknown) buffering up to `capacity` bytes.
    public init(length: Int64? = nil, capacity: Int = 1 << 20) {
        precondition(capacity > 0, "A request body stream needs a positive capacity.")
        self.length = length
        self.capacity = capacity
    }

    public static func == (lhs: RequestBodyStream, rhs: RequestBodyStream) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: - Producer (blocking)

    /// Appends `bytes`, first waiting while the buffer is full.
    /// - Returns: `false` when the stream was cancelled: nothing more will be read.
    @discardableResult
    public func write(_ bytes: Data) -> Bool {
        let space = DispatchSemaphore(value: 0)
        while true {
            switch write(bytes, orWhenSpace: { space.signal() }) {
            case .written: return true
            case .cancelled: return false
            case .full: space.wait()
            }
        }
    }

    /// Appends `bytes` unless the buffer is full; then appends nothing, and `wake` runs once the
    /// consumer has made room or the stream is cancelled. For a producer that may not block.
    public func write(_ bytes: Data, orWhenSpace wake: @escaping @Sendable () -> Void) -> WriteResult {
        let result = state.withLock { state -> WriteResult in
            if state.cancelled { return .cancelled }
            guard state.buffered < capacity else {
                state.space = wake
                return .full
            }
            state.chunks.append(bytes)
            state.buffered += bytes.count
            return .written
        }
        if result == .written { takeReadable()?() }
        return result
    }

    /// Marks the body complete.
    public func finish() {
        state.withLock { $0.finished = true }
        takeReadable()?()
    }

    // MARK: - Consumer (non-blocking)

    /// Copies up to `buffer.count` buffered bytes into `buffer`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        let (result, wakeProducer) = state.withLock { state -> (ReadResult, (@Sendable () -> Void)?) in
            if state.cancelled { return (.failed, nil) }
            guard let first = state.chunks.first else { return (state.finished ? .end : .wouldBlock, nil) }
            let taken = min(buffer.count, first.count)
            first.copyBytes(to: buffer, count: taken)
            if taken == first.count {
                state.chunks.removeFirst()
            } else {
                state.chunks[0] = first.dropFirst(taken)
            }
            state.buffered -= taken
            guard state.buffered < capacity else { return (.bytes(taken), nil) }
            defer { state.space = nil }
            return (.bytes(taken), state.space)
        }
        wakeProducer?()
        return result
    }

    /// Runs `action` once, as soon as a read would not give ``ReadResult/wouldBlock`` (at once if
    /// that is already so). It replaces an action still waiting.
    public func whenReadable(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.chunks.isEmpty && !state.finished && !state.cancelled {
                state.readable = action
                return false
            }
            return true
        }
        if runNow { action() }
    }

    /// Either side gives up: writes return `false` from now on, reads ``ReadResult/failed``, and
    /// the buffered bytes are dropped. Harmless once the body was read to its end.
    public func cancel() {
        let wakeProducer = state.withLock { state in
            state.cancelled = true
            state.chunks = []
            state.buffered = 0
            defer { state.space = nil }
            return state.space
        }
        wakeProducer?()
        takeReadable()?()
    }

    /// Reads the whole body, for a transport that needs it at once.
    /// - Throws: ``Failure`` when the stream is cancelled before its end.
    public func collect() async throws -> Data {
        var body = Data()
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            switch block.withUnsafeMutableBytes({ read(into: $0) }) {
            case .bytes(let count):
                body.append(contentsOf: block[..<count])
            case .wouldBlock:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    whenReadable { continuation.resume() }
                }
            case .end:
                return body
            case .failed:
                throw Failure()
            }
        }
    }

    /// The waiting ``whenReadable(_:)`` action, removed.
    private func takeReadable() -> (@Sendable () -> Void)? {
        state.withLock { state in
            defer { state.readable = nil }
            return state.readable
        }
    }
}
