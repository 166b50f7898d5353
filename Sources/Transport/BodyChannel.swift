import FoundationEssentials
import Synchronization

/// What a body channel asks of the producer that fills it.
package protocol BodyFlowControl: Sendable {
    /// The consumer drained the buffer: deliver again.
    func resumeProducer()
    /// The consumer has gone: stop the transfer and release it.
    func cancelProducer()
}

/// A bounded buffer of body chunks between a producer (the network) and one consumer (the caller).
///
/// The producer offers chunks; once ``highWater`` bytes are waiting it is told to pause, and it
/// is resumed when the consumer has taken the buffer down to ``lowWater``. So memory stays flat
/// whatever the size of the body.
package final class BodyChannel: Sendable {
    /// What the producer must do after an offer.
    package enum Offer: Equatable {
        /// The chunk was taken; go on.
        case accepted
        /// The chunk was taken but the buffer is full: pause until resumed.
        case acceptedButFull
        /// The chunk was not taken because the buffer is full: pause, and offer it again when resumed.
        case refused
        /// The consumer has gone: stop.
        case consumerGone
    }

    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        var maxBuffered = 0
        var paused = false
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<Data?, any Error>?
        var consumerGone = false
        /// Run once the producer has delivered the whole body.
        var whenReceived: [@Sendable () -> Void] = []
        /// Whether the producer has delivered the whole body.
        var received = false
    }

    let highWater: Int
    let lowWater: Int
    private let state = Mutex(State())
    private let control: Mutex<(any BodyFlowControl)?>

    package init(highWater: Int, control: (any BodyFlowControl)? = nil) {
        precondition(highWater > 0, "A body channel needs a positive buffer size.")
        self.highWater = highWater
        self.lowWater = highWater / 2
        self.control = Mutex(control)
    }

    /// A channel already holding the whole body.
    convenience init(complete data: Data) {
        self.init(highWater: max(1, data.count))
        if !data.isEmpty { _ = offer(data, refusable: false) }
        finish(.success(()))
    }

    // MARK: - Producer side

    /// Offers a chunk. With `refusable`, a full buffer refuses it (the producer keeps it); without,
    /// the chunk is always taken and the producer is told to pause when the buffer is full.
    package func offer(_ data: Data, refusable: Bool) -> Offer {
        enum Action { case deliver(CheckedContinuation<Data?, any Error>), done(Offer) }
        let action = state.withLock { state -> Action in
            if state.consumerGone || state.end != nil { return .done(.consumerGone) }
            if let waiter = state.waiter {
                state.waiter = nil
                return .deliver(waiter)
            }
            if refusable && state.buffered >= highWater {
                state.paused = true
                return .done(.refused)
            }
            state.chunks.append(data)
            state.buffered += data.count
            state.maxBuffered = max(state.maxBuffered, state.buffered)
            if state.buffered >= highWater {
                state.paused = true
                return .done(.acceptedButFull)
            }
            return .done(.accepted)
        }
        switch action {
        case .deliver(let waiter):
            waiter.resume(returning: data)
            return .accepted
        case .done(let offer):
            return offer
        }
    }

    /// Ends the body: successfully, or with the error the consumer will see after the buffered chunks.
    /// On success the ``whenReceived(_:)`` actions run first, so they have run before the consumer
    /// can see the end.
    package func finish(_ result: Result<Void, any Error>) {
        if case .success = result {
            let received = state.withLock { state -> [@Sendable () -> Void] in
                guard state.end == nil, !state.received else { return [] }
                state.received = true
                defer { state.whenReceived = [] }
                return state.whenReceived
            }
            received.forEach { $0() }
        }
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = result
            state.whenReceived = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result.map { nil })
        control.withLock { $0 = nil }
    }

    /// Runs `action` once the producer has delivered the whole body (at once if it has), whether or
    /// not the consumer has read it yet; never if the transfer fails or is cancelled.
    func whenReceived(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.received { return true }
            if state.end != nil { return false }
            state.whenReceived.append(action)
            return false
        }
        if runNow { action() }
    }

    // MARK: - Consumer side

    /// The next chunk, or `nil` at the end of the body.
    func next() async throws -> Data? {
        let first = state.withLock { Self.take(&$0, lowWater: lowWater) }
        switch first {
        case .chunk(let chunk, let resume):
            if resume { control.withLock { $0 }?.resumeProducer() }
            return chunk
        case .end(let result):
            try result.get()
            return nil
        case .wait:
            break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let action = state.withLock { state -> Take in
                    let action = Self.take(&state, lowWater: lowWater)
                    if case .wait = action { state.waiter = continuation }
                    return action
                }
                switch action {
                case .chunk(let chunk, let resume):
                    if resume { control.withLock { $0 }?.resumeProducer() }
                    continuation.resume(returning: chunk)
                case .end(let result):
                    continuation.resume(with: result.map { nil })
                case .wait:
                    break
                }
            }
        } onCancel: {
            consumerCancelled()
        }
    }

    private enum Take {
        case chunk(Data, resume: Bool)
        case end(Result<Void, any Error>)
        case wait
    }

    private static func take(_ state: inout State, lowWater: Int) -> Take {
        if !state.chunks.isEmpty {
            let chunk = state.chunks.removeFirst()
            state.buffered -= chunk.count
            let resume = state.paused && state.buffered <= lowWater && state.end == nil
            if resume { state.paused = false }
            return .chunk(chunk, resume: resume)
        }
        if let end = state.end { return .end(end) }
        if state.consumerGone { return .end(.failure(CancellationError())) }
        return .wait
    }

    /// The consumer has gone (task cancelled or body dropped): fail a waiting `next()`, drop the
    /// buffer and stop the producer unless the body was already complete.
    func consumerCancelled() {
        let (waiter, stopProducer) = state.withLock { state -> (CheckedContinuation<Data?, any Error>?, Bool) in
            let running = state.end == nil
            state.consumerGone = true
            state.chunks.removeAll()
            state.buffered = 0
            if running { state.end = .failure(CancellationError()) }
            defer { state.waiter = nil }
            return (state.waiter, running)
        }
        waiter?.resume(throwing: CancellationError())
        if stopProducer {
            let producer = control.withLock { control -> (any BodyFlowControl)? in
                defer { control = nil }
                return control
            }
            producer?.cancelProducer()
        }
    }

    // MARK: - Test hooks

    /// The most bytes that were ever waiting in the buffer.
    var maxBufferedBytes: Int { state.withLock { $0.maxBuffered } }
}
