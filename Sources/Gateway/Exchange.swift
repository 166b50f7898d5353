import Dispatch
import Foundation
import HTTPCore
import Synchronization

/// One request in flight between a connection thread of the HTTP server, which blocks, and the
/// task that loads the response, which is async.
///
/// The connection thread waits for the head, then pulls body bytes; the task delivers the head,
/// then pushes chunks and is suspended while ``capacity`` bytes wait unread, so a large body is
/// never held whole in memory and a slow client slows the transfer down instead.
final class Exchange: Sendable {
    /// The head the connection thread sends.
    struct Head: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var length: ProxyResponse.BodyLength
    }

    /// What one pull of body bytes gave.
    enum ReadResult: Equatable {
        /// This many bytes were copied.
        case bytes(Int)
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
        var consumerWaiting = false
        var producerWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let headReady = DispatchSemaphore(value: 0)
    private let bytesReady = DispatchSemaphore(value: 0)

    // MARK: - Producer (async)

    /// Delivers the head; later calls are ignored (the first head wins, such as a shutdown's 503).
    /// - Returns: whether this head is the one delivered.
    @discardableResult
    func deliverHead(_ head: Head) -> Bool {
        let delivered = state.withLock { state in
            guard state.head == nil else { return false }
            state.head = head
            return true
        }
        if delivered { headReady.signal() }
        return delivered
    }

    /// Queues a chunk and waits while the buffer is full.
    /// - Returns: `false` when the chunk was refused because nobody will read any more (the client
    ///   left, or the gateway stops).
    func push(_ chunk: Data) async -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.consumerGone, !state.failed else { return (false, false) }
            state.chunks.append(chunk)
            state.queuedBytes += chunk.count
            let wake = state.consumerWaiting
            state.consumerWaiting = false
            return (true, wake)
        }
        if wake { bytesReady.signal() }
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
        let wake = state.withLock { state in
            if failed { state.failed = true } else { state.finished = true }
            let wake = state.consumerWaiting
            state.consumerWaiting = false
            return wake
        }
        if wake { bytesReady.signal() }
    }

    // MARK: - Consumer (connection thread, blocking)

    /// Blocks until the head is delivered.
    func waitForHead() -> Head {
        headReady.wait()
        return state.withLock { $0.head! }
    }

    /// Copies up to `count` body bytes into `buffer`, blocking until some are available.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> ReadResult {
        while true {
            var waiter: CheckedContinuation<Void, Never>?
            let result = state.withLock { state -> ReadResult? in
                if let first = state.chunks.first {
                    let taken = min(count, first.count)
                    first.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), count: taken)
                    if taken == first.count {
                        state.chunks.removeFirst()
                    } else {
                        state.chunks[0] = first.dropFirst(taken)
                    }
                    state.queuedBytes -= taken
                    if state.queuedBytes < Self.capacity {
                        waiter = state.producerWaiter
                        state.producerWaiter = nil
                    }
                    return .bytes(taken)
                }
                if state.failed { return .failed }
                if state.finished { return .end }
                state.consumerWaiting = true
                return nil
            }
            waiter?.resume()
            if let result { return result }
            bytesReady.wait()
        }
    }

    /// The connection is done with the body (sent, or the client left): the producer stops.
    func consumerFinished() {
        let waiter = state.withLock { state in
            state.consumerGone = true
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
        let (waiter, wake) = state.withLock { state in
            state.failed = true
            let waiter = state.producerWaiter
            state.producerWaiter = nil
            let wake = state.consumerWaiting
            state.consumerWaiting = false
            return (waiter, wake)
        }
        waiter?.resume()
        if wake { bytesReady.signal() }
    }
}
