import FoundationEssentials

/// Caches one token until it expires and makes concurrent fetches share one call (single flight).
///
/// Many preload tasks reach an expired token at the same moment; they must not run a token
/// command, or call a token endpoint, once each (``SharedCall``).
actor TokenCache {
    typealias Fetch = @Sendable (_ forceRefresh: Bool) async throws -> AuthorizationToken

    private var cached: AuthorizationToken?
    private var inFlight: (call: SharedCall<AuthorizationToken>, epoch: Int)?
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
        if let inFlight, !inFlight.call.isAbandoned {
            inFlight.call.join()
            return try await inFlight.call.value()
        }
        if !forceRefresh, let cached, !cached.isExpired(at: clock(), leeway: leeway) {
            return cached
        }
        let call = SharedCall { try await fetch(forceRefresh) }
        call.join()
        let startedEpoch = epoch
        inFlight = (call, startedEpoch)
        do {
            let token = try await call.value()
            if epoch == startedEpoch, inFlight?.call === call {
                cached = token
                inFlight = nil
            }
            return token
        } catch {
            if epoch == startedEpoch, inFlight?.call === call { inFlight = nil }
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
