import CacheStore
import Dispatch
import Foundation
import HTTPCore
import Synchronization
import WebCache

/// The body of a stored answer larger than one chunk, copied from the store straight into the HTTP
/// server's send buffer as the socket takes it (``CacheStore/bodyCopier(bodyID:)``): one copy, from
/// SQLite's row into the buffer, each chunk checked there before it is sent.
///
/// It lives on the thread of its connection, which blocks while it reads. A body found damaged on
/// the way is removed from the store before the connection is closed, so that the client's next
/// request is fetched again, as the loader does with a damaged streamed body.
final class StoredBodyStream {
    private var copier: BodyCopier
    private let answer: StoredAnswer
    private let cache: WebCache
    private let logger: Logger
    private let target: String
    /// The body bytes handed to the server so far.
    private(set) var bytesCopied: Int64 = 0

    init(answer: StoredAnswer, bodyID: Int64, cache: WebCache, logger: Logger, target: String) {
        copier = cache.store.bodyCopier(bodyID: bodyID)
        self.answer = answer
        self.cache = cache
        self.logger = logger
        self.target = target
    }

    /// Copies the next bytes into `buffer` (the server's, of `count` bytes).
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Exchange.ReadResult {
        do {
            let copied = try copier.copy(into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
            guard copied > 0 else { return .end }
            bytesCopied += Int64(copied)
            return .bytes(copied)
        } catch {
            let failure = waitFor { [cache, answer] in await cache.storedBodyFailed(answer, with: error) }
            logger.warning("The body of \(target) broke off after \(bytesCopied) bytes: \(failure)")
            return .failed
        }
    }

    /// Runs `work` and blocks this (connection) thread until it is done.
    private func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome<T>()
        Task {
            let value = await work()
            outcome.value.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return outcome.value.withLock { $0! }
    }

    /// What an async piece of work gave, handed back to a blocked thread.
    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
    }
}
