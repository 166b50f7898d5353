import FoundationEssentials
import HTTPCore
import Synchronization

/// One request in flight between a connection of the HTTP server, whose callbacks never block,
/// and the task that loads the response, which is async.
///
/// The connection asks for the head, then pulls body bytes; when they are not there yet, it leaves
/// a wake-up and suspends (see ``ConnectionSuspensions``). The task delivers the head, then pushes
/// chunks and is suspended while ``capacity`` bytes wait unread, so a large body is never held
/// whole in memory and a slow client slows the transfer down instead.
final class Exchange: Sendable {
    /// The head the connection sends.
    struct Head: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var length: ProxyResponse.BodyLength
    }

    /// What one pull of body bytes gave.
    enum ReadResult: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
        /// Nothing yet: the wake-up given runs once there is something to read.
        case later
        /// The body is complete.
        case end
        /// The body could not be produced to the end; the connection must be closed.
        case failed
    }

    /// The most unread body bytes buffered before the producer waits.
    static let capacity = 1 << 20

    private struct State {
        var head: Head?
        var chunks: [Data] = []
        var queuedBytes = 0
        var finished = false
        var failed = false
        var consumerGone = false
        /// Wakes the connection waiting for the head or for body bytes.
        var consumerWaker: (@Sendable () -> Void)?
        var producerWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    // MARK: - Producer (async)

    /// Delivers the head; later calls are ignored (the first head wins, such as a shutdown's 503).
    /// - Returns: whether this head is the one delivered.
    @discardableResult
    func deliverHead(_ head: Head) -> Bool {
        let (delivered, waker) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard state.head == nil else { return (false, nil) }
            state.head = head
            defer { state.consumerWaker = nil }
            return (true, state.consumerWaker)
        }
        waker?()
        return delivered
    }

    /// Queues a chunk and waits while the buffer is full.
    /// - Returns: `false` when the chunk was refused because nobody will read any more (the client
    ///   left, or the gateway stops).
    func push(_ chunk: Data) async -> Bool {
        let (accepted, waker) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.consumerGone, !state.failed else { return (false, nil) }
            state.chunks.append(chunk)
            state.queuedBytes += chunk.count
            defer { state.consumerWaker = nil }
            return (true, state.consumerWaker)
        }
        waker?()
        guard accepted else { return false }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.queuedBytes < Self.capacity || state.consumerGone || state.failed { return true }
                state.producerWaiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return true
    }

    /// Marks the body complete (`failed: false`) or broken (`failed: true`).
    func finish(failed: Bool) {
        let waker = state.withLock { state in
            if failed { state.failed = true } else { state.finished = true }
            defer { state.consumerWaker = nil }
            return state.consumerWaker
        }
        waker?()
    }

    // MARK: - Consumer (connection callbacks, never blocking)

    /// The head, once delivered; until then `nil`, and `wake` runs once it is.
    func head(orWhenDelivered wake: @escaping @Sendable () -> Void) -> Head? {
        state.withLock { state in
            if state.head == nil { state.consumerWaker = wake }
            return state.head
        }
    }

    /// Copies up to `count` body bytes into `buffer`; ``ReadResult/later`` when none are there yet,
    /// and `wake` runs once some are (or the body ends).
    func read(into buffer: UnsafeMutableRawPointer, count: Int, orWhenReadable wake: @escaping @Sendable () -> Void)
        -> ReadResult
    {
        let (result, waiter) = state.withLock { state -> (ReadResult, CheckedContinuation<Void, Never>?) in
            guard let first = state.chunks.first else {
                if state.failed { return (.failed, nil) }
                if state.finished { return (.end, nil) }
                state.consumerWaker = wake
                return (.later, nil)
            }
            let taken = min(count, first.count)
            first.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), count: taken)
            if taken == first.count {
                state.chunks.removeFirst()
            } else {
                state.chunks[0] = first.dropFirst(taken)
            }
            state.queuedBytes -= taken
            guard state.queuedBytes < Self.capacity else { return (.bytes(taken), nil) }
            defer { state.producerWaiter = nil }
            return (.bytes(taken), state.producerWaiter)
        }
        waiter?.resume()
        return result
    }

    /// The connection is done with the body (sent, or the client left): the producer stops.
    func consumerFinished() {
        let waiter = state.withLock { state in
            state.consumerGone = true
            state.consumerWaker = nil
            let waiter = state.producerWaiter
            state.producerWaiter = nil
            return waiter
        }
        waiter?.resume()
    }

    // MARK: - Shutdown

    /// Ends the exchange from outside: a waiting connection gets `head` (if it has none yet) and
    /// a broken body, the producer stops.
    func abort(with head: Head) {
        deliverHead(head)
        let (waiter, waker) = state.withLock { state in
            state.failed = true
            let waiter = state.producerWaiter
            state.producerWaiter = nil
            defer { state.consumerWaker = nil }
            return (waiter, state.consumerWaker)
        }
        waiter?.resume()
        waker?()
    }
}
