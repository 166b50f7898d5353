/// The lifecycle of one DevTools connection, as pure state and decisions (no I/O), shared by every
/// command sent on it.
///
/// ```
///        command sent / reply received
///            ┌────────┐
///            ▼        │
///          open ──────┘
///            │ pipe ended, write failed, or closed
///            ▼
///          closed ── every command waiting fails, every later one fails at once
/// ```
///
/// Commands are numbered from 1; a reply resumes the command of its id once. A command given up
/// (its task cancelled, or no reply in time) is forgotten, and its late reply ignored. When the
/// connection closes, every command still waiting fails with the reason.
struct ConnectionStateMachine: Sendable, Hashable {
    enum State: Sendable, Hashable {
        case open(nextID: Int, waiting: Set<Int>)
        case closed(reason: String)
    }

    enum SendAction: Sendable, Hashable {
        /// Write the command with this id, and wait for its reply.
        case send(id: Int)
        /// Fail the command at once: the connection is closed.
        case fail(reason: String)
    }

    enum ReplyAction: Sendable, Hashable {
        /// Hand the reply to the command waiting for it.
        case resume(id: Int)
        /// Nobody waits for it (given up, or an unknown id).
        case ignore
    }

    enum CloseAction: Sendable, Hashable {
        /// Fail these waiting commands with the reason.
        case failWaiting(ids: Set<Int>, reason: String)
        /// It was closed already.
        case none
    }

    private(set) var state: State = .open(nextID: 1, waiting: [])

    /// Whether the connection is still open.
    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    // MARK: - Events

    /// A command is about to be sent.
    mutating func commandWillBeSent() -> SendAction {
        switch state {
        case .open(let nextID, var waiting):
            waiting.insert(nextID)
            state = .open(nextID: nextID + 1, waiting: waiting)
            return .send(id: nextID)
        case .closed(let reason):
            return .fail(reason: reason)
        }
    }

    /// The reply to command `id` arrived.
    mutating func replyReceived(id: Int) -> ReplyAction {
        guard case .open(let nextID, var waiting) = state, waiting.remove(id) != nil else { return .ignore }
        state = .open(nextID: nextID, waiting: waiting)
        return .resume(id: id)
    }

    /// Command `id` was given up by its sender; returns whether it was still waiting.
    mutating func commandAbandoned(id: Int) -> Bool {
        guard case .open(let nextID, var waiting) = state, waiting.remove(id) != nil else { return false }
        state = .open(nextID: nextID, waiting: waiting)
        return true
    }

    /// The pipe ended or failed, or the connection was closed on purpose.
    mutating func closed(reason: String) -> CloseAction {
        guard case .open(_, let waiting) = state else { return .none }
        state = .closed(reason: reason)
        return .failWaiting(ids: waiting, reason: reason)
    }
}
