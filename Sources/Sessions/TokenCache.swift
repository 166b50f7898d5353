import Foundation

/// Caches one token until it expires and makes concurrent fetches share one call (single flight).
///
/// Many preload tasks reach an expired token at the same moment; they must not run a token
/// command, or call a token endpoint, once each.
actor TokenCache {
    typealias Fetch = @Sendable (_ forceRefresh: Bool) async throws -> AuthorizationToken

    private var cached: AuthorizationToken?
    private var inFlight: (task: Task<AuthorizationToken, any Error>, epoch: Int)?
    /// Incremented by ``clear()`` so a fetch that finishes after a logout is not cached.
    private var epoch = 0
    private let leeway: TimeInterval
    private let clock: @Sendable () -> Date

    /// - Parameter leeway: a token expiring within this many seconds counts as expired.
    init(leeway: TimeInterval = 30, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.leeway = leeway
        self.clock = clock
    }

    /// The cached token when it is valid and `forceRefresh` is `false`; otherwise the result of `fetch`,
    /// shared with every caller that arrives while it runs.
    func token(forceRefresh: Bool, fetch: @escaping Fetch) async throws -> AuthorizationToken {
        if let inFlight {
            return try await inFlight.task.value
        }
        if !forceRefresh, let cached, !cached.isExpired(at: clock(), leeway: leeway) {
            return cached
        }
        // The caches of Nuke's TaskPool work the same way: one task per key, awaited by every caller.
        let task = Task { try await fetch(forceRefresh) }
        let startedEpoch = epoch
        inFlight = (task, startedEpoch)
        do {
            let token = try await task.value
            if epoch == startedEpoch {
                cached = token
                inFlight = nil
            }
            return token
        } catch {
            if epoch == startedEpoch { inFlight = nil }
            throw error
        }
    }

    /// Forgets the cached token; a fetch still running will not be cached.
    func clear() {
        cached = nil
        inFlight = nil
        epoch += 1
    }
}
