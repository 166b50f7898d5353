import Dispatch
import HTTPCore
import Sessions
import Synchronization

/// Keeps a partition's cookie file in step with the session's jar.
///
/// Writes run one at a time on a queue of their own, each with the cookies as they are when it
/// runs; an empty jar removes the file. A session that starts or is renewed is saved before the
/// response that carried it is handed on (``saveNow()``). Cookies that change later, such as a
/// session id the instance rotates, are saved soon after, off the session's executor
/// (``saveSoon()``): changes that arrive while a write is waiting share it, as a browser batches its
/// cookie writes, so an instance that sets a cookie on every response costs no sync per response.
final class CookieKeeper: Sendable {
    private let file: CookieFile
    private let jar: CookieJar
    private let logger: Logger
    private let queue = DispatchQueue(label: "webcache.cookies")
    /// Whether a write is queued and has not begun.
    private let writeQueued = Mutex(false)
    /// Whether the session is still signed in: once the user signed out (another process's `logout`,
    /// say), the jar is no longer written.
    private let isCurrent: @Sendable () -> Bool

    /// - Parameter isCurrent: asked before and after each write of the jar; see ``write()``.
    init(file: CookieFile, jar: CookieJar, logger: Logger, isCurrent: @escaping @Sendable () -> Bool = { true }) {
        self.file = file
        self.jar = jar
        self.logger = logger
        self.isCurrent = isCurrent
    }

    /// Writes the jar now, after any write under way; a failure is logged.
    func saveNow() {
        queue.sync { writeLoggingFailure() }
    }

    /// Writes the jar soon and returns at once; a failure is logged.
    func saveSoon() {
        let alreadyQueued = writeQueued.withLock { queued in
            defer { queued = true }
            return queued
        }
        guard !alreadyQueued else { return }
        queue.async { [self] in
            writeQueued.withLock { $0 = false }
            writeLoggingFailure()
        }
    }

    /// Writes the jar after any write under way, and throws what fails.
    ///
    /// - Throws: ``WebCacheError`` naming the file.
    func save() async throws {
        try await onQueue { try self.write() }
    }

    /// Deletes the file after any write under way, whatever the jar holds.
    ///
    /// - Throws: ``WebCacheError`` naming the file.
    func remove() async throws {
        try await onQueue { try self.file.remove() }
    }

    /// Writes the jar, unless the user signed out. A sign-out counts before its process deletes the
    /// file: one counted after the check before the write, whose file deletion came before the write,
    /// is seen by the check after it, which deletes the file again.
    private func write() throws {
        guard isCurrent() else { return }
        let snapshot = jar.snapshot()
        // No cookies (after a logout, say) leaves no file behind.
        try snapshot.cookies.isEmpty ? file.remove() : file.save(snapshot)
        if !snapshot.cookies.isEmpty, !isCurrent() { try file.remove() }
    }

    private func writeLoggingFailure() {
        do { try write() } catch { logger.log(.error, "\(error)") }
    }

    private func onQueue(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
