import Synchronization

/// Messages from many tasks to one reader, first in first out, without a bound.
///
/// Unlike an `AsyncStream`, whose iterator ends as soon as the reading task is cancelled and drops
/// what is sent after, reading goes on in a cancelled task: the preload engine's scheduling loop
/// still hears how each fetch of a cancelled run ended.
final class MessageQueue<Message: Sendable>: Sendable {
    private struct State {
        var messages: [Message] = []
        /// The index of the oldest message not yet read.
        var head = 0
        var reader: CheckedContinuation<Message, Never>?
    }

    private let state = Mutex(State())

    /// Adds `message`, handing it to the reader if it is waiting.
    func send(_ message: Message) {
        let reader = state.withLock { state -> CheckedContinuation<Message, Never>? in
            guard let reader = state.reader else {
                state.messages.append(message)
                return nil
            }
            state.reader = nil
            return reader
        }
        reader?.resume(returning: message)
    }

    /// The oldest message not yet read, waiting for one if there is none. One reader at a time.
    func next() async -> Message {
        await withCheckedContinuation { continuation in
            let message = state.withLock { state -> Message? in
                guard state.head < state.messages.count else {
                    state.reader = continuation
                    return nil
                }
                let message = state.messages[state.head]
                state.head += 1
                if state.head == state.messages.count {
                    state.messages.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return message
            }
            if let message { continuation.resume(returning: message) }
        }
    }
}
