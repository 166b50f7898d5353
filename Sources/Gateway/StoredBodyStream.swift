import CacheStore
import FoundationEssentials
import HTTPCore
import Synchronization
import WebCache

/// The body of a stored answer larger than one chunk, copied from the store straight into the HTTP
/// server's send buffer as the socket takes it (``CacheStore/bodyCopier(bodyID:)``): one copy, from
/// SQLite's row into the buffer, each chunk checked there before it is sent.
///
/// It is read in the callbacks of its connection. A body found damaged on the way is removed from
/// the store before the connection is closed (the connection is suspended meanwhile), so that the
/// client's next request is fetched again, as the loader does with a damaged streamed body.
final class StoredBodyStream {
    private var copier: BodyCopier
    private let answer: StoredAnswer
    private let cache: WebCache
    private let logger: Logger
    private let target: String
    /// The body bytes handed to the server so far.
    private(set) var bytesCopied: Int64 = 0
    /// The removal of the body from the store, once it was found damaged.
    private var removal: Removal?

    /// Whether a damaged body has been removed from the store.
    private final class Removal: Sendable {
        let done = Atomic<Bool>(false)
        var isDone: Bool { done.load(ordering: .acquiring) }
    }

    init(answer: StoredAnswer, bodyID: Int64, cache: WebCache, logger: Logger, target: String) {
        copier = cache.store.bodyCopier(bodyID: bodyID)
        self.answer = answer
        self.cache = cache
        self.logger = logger
        self.target = target
    }

    /// Copies the next bytes into `buffer` (the server's, of `count` bytes). When the body turns out
    /// damaged, ``Exchange/ReadResult/later`` until it is removed from the store (then `wake`
    /// runs), and ``Exchange/ReadResult/failed`` from then on.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, orWhenReadable wake: @escaping @Sendable () -> Void)
        -> Exchange.ReadResult
    {
        if let removal { return removal.isDone ? .failed : .later }
        do {
            let copied = try copier.copy(into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
            guard copied > 0 else { return .end }
            bytesCopied += Int64(copied)
            return .bytes(copied)
        } catch {
            let removal = Removal()
            self.removal = removal
            let message = "The body of \(target) broke off after \(bytesCopied) bytes"
            Task { [cache, answer, logger] in
                let failure = await cache.storedBodyFailed(answer, with: error)
                logger.warning("\(message): \(failure)")
                removal.done.store(true, ordering: .releasing)
                wake()
            }
            return .later
        }
    }
}
