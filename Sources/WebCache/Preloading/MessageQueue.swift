import Synchronization

/// Messages from many tasks to one reader, first in first out, without a bound.
///
/// Unlike an `AsyncStream`, whose iterator ends as soon as the reading task is cancelled and drops
/// what is sent after, reading goes on in a cancelled task: the preload engine's scheduling loop
/// still hears how each fetch of a cancelled run ended.
final class MessageQueue<Message: Sendable>: Sendable {
    private struct State {
        var messages: [Message] = []
        var reader: CheckedContinuation<[Message], Never>?
    }

    private let state = Mutex(State())

    /// Adds `message`, handing it to the reader if it is waiting.
    func send(_ message: Message) {
        let reader = state.withLock { state -> CheckedContinuation<[Message], Never>? in
            guard let reader = state.reader else {
                state.messages.append(message)
                return nil
            }
            state.reader = nil
            return reader
        }
        reader?.resume(returning: [message])
    }

    /// Every message not yet read, oldest first, waiting for one if there is none. One reader at a
    /// time. Taking them all at once lets the reader do what follows a batch (look for what has
    /// settled, start what fits) once per batch instead of once per message.
    func next() async -> [Message] {
        await withCheckedContinuation { continuation in
            let waiting = state.withLock { state -> [Message] in
                guard !state.messages.isEmpty else {
                    state.reader = continuation
                    return []
                }
                defer { state.messages = [] }
                return state.messages
            }
            if !waiting.isEmpty { continuation.resume(returning: waiting) }
        }
    }
}
