import FoundationEssentials
import HTTPCore
import Synchronization

/// A DevTools-protocol client on a pipe: commands numbered by ``ConnectionStateMachine``, replies
/// handed to the commands waiting for them, events to the stream of their target session.
///
/// The reading thread hands each message over synchronously under a lock, so a reply resumes its
/// command without a task in between, and a command given up (cancelled, or unanswered in time)
/// is resumed at once from its cancellation handler.
final class DevToolsConnection: Sendable {
    private struct State {
        var machine = ConnectionStateMachine()
        var waiting: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        /// Event streams by session id; the key `""` is the browser's own events.
        var subscribers: [String: AsyncStream<DevToolsEvent>.Continuation] = [:]
    }

    private let state = Mutex(State())
    private let writer: PipeWriter
    /// How long a command may wait for its reply before the browser is taken to hang.
    private let commandTimeout: Mutex<Duration>

    /// Starts reading from `input` and writing to `output` (both pipe ends of the parent).
    init(input: Int32, output: Int32, commandTimeout: Duration) {
        self.commandTimeout = Mutex(commandTimeout)
        let closer = Closer()
        writer = PipeWriter(descriptor: output, failed: { reason in closer.connection?.close(reason: reason) })
        closer.connection = self
        PipeReader.start(
            descriptor: input, deliver: { [weak self] message in self?.receive(message) },
            ended: { [weak self] reason in self?.close(reason: reason) })
    }

    /// Lets the writer's failure reach the connection that owns it.
    private final class Closer: @unchecked Sendable {
        // @unchecked: set once in the connection's initialiser, before the writer can fail.
        weak var connection: DevToolsConnection?
    }

    /// Changes how long later commands may wait for their reply.
    func setCommandTimeout(_ timeout: Duration) {
        commandTimeout.withLock { $0 = timeout }
    }

    /// Whether the connection is still open.
    var isOpen: Bool { state.withLock { $0.machine.isOpen } }

    // MARK: - Commands

    /// Sends `method` with `params` to the browser, or to the target session `sessionID`, and
    /// returns the result.
    /// - Throws: ``DevToolsError``: the browser's protocol error, the connection's end, or no reply
    ///   within the command timeout; `CancellationError` when the calling task is cancelled.
    @discardableResult
    func send(_ method: String, _ params: JSONValue = [:], session sessionID: String? = nil) async throws -> JSONValue {
        let timeout = commandTimeout.withLock { $0 }
        return try await withThrowingTaskGroup(of: JSONValue.self) { group in
            group.addTask { try await self.exchange(method, params, sessionID) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw DevToolsError.unresponsive(method: method, seconds: Int(timeout.components.seconds))
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private func exchange(_ method: String, _ params: JSONValue, _ sessionID: String?) async throws -> JSONValue {
        let id = Mutex<Int?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let action = state.withLock { state in
                    let action = state.machine.commandWillBeSent()
                    if case .send(let number) = action { state.waiting[number] = continuation }
                    return action
                }
                switch action {
                case .fail(let reason):
                    continuation.resume(throwing: DevToolsError.disconnected(reason: reason))
                case .send(let number):
                    id.withLock { $0 = number }
                    writer.write(DevToolsMessage.command(id: number, method: method, params: params,
                                                         sessionID: sessionID))
                    // Cancelled before the id was known: the handler below found nothing to give up.
                    if Task.isCancelled { abandon(number) }
                }
            }
        } onCancel: {
            if let number = id.withLock({ $0 }) { abandon(number) }
        }
    }

    private func abandon(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<JSONValue, any Error>? in
            guard state.machine.commandAbandoned(id: id) else { return nil }
            return state.waiting.removeValue(forKey: id)
        }
        continuation?.resume(throwing: CancellationError())
    }

    // MARK: - Events

    /// The events of target session `sessionID` (`nil`: the browser's own) from now on; the stream
    /// ends when the connection closes or ``stopEvents(for:)`` is called.
    func events(for sessionID: String?) -> AsyncStream<DevToolsEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DevToolsEvent.self)
        let open = state.withLock { state in
            guard state.machine.isOpen else { return false }
            state.subscribers[sessionID ?? ""] = continuation
            return true
        }
        if !open { continuation.finish() }
        return stream
    }

    /// Ends the event stream of `sessionID`.
    func stopEvents(for sessionID: String?) {
        state.withLock { $0.subscribers.removeValue(forKey: sessionID ?? "") }?.finish()
    }

    // MARK: - Input and end

    private func receive(_ message: DevToolsMessage) {
        switch message {
        case .reply(let id, let result):
            let continuation = state.withLock { state -> CheckedContinuation<JSONValue, any Error>? in
                guard case .resume = state.machine.replyReceived(id: id) else { return nil }
                return state.waiting.removeValue(forKey: id)
            }
            continuation?.resume(with: result.mapError { $0 as any Error })
        case .event(let event):
            _ = state.withLock { $0.subscribers[event.sessionID ?? ""] }?.yield(event)
        }
    }

    /// Closes the connection: every command waiting fails with `reason`, every event stream ends,
    /// and the pipe to the browser is closed (the browser exits when it reads its end).
    func close(reason: String) {
        let (action, subscribers) = state.withLock { state in
            let action = state.machine.closed(reason: reason)
            let subscribers = Array(state.subscribers.values)
            state.subscribers.removeAll()
            if case .failWaiting(let ids, _) = action {
                return (ids.compactMap { state.waiting.removeValue(forKey: $0) }, subscribers)
            }
            return ([], subscribers)
        }
        for continuation in action { continuation.resume(throwing: DevToolsError.disconnected(reason: reason)) }
        for subscriber in subscribers { subscriber.finish() }
        writer.finish()
    }
}
