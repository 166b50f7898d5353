import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// State kept in sixteen stripes, each behind its own lock; a thread works on the stripe its id
/// picks. For state that many threads touch briefly and often (a gateway's connection threads, one
/// touch per request): one lock for all of them is held, now and then, by a thread the scheduler has
/// just paused, and then every other thread waits on it.
public final class ThreadStripes<State: Sendable>: Sendable {
    @usableFromInline
    final class Stripe: Sendable {
        @usableFromInline let state: Mutex<State>

        init(_ state: sending State) {
            self.state = Mutex(state)
        }
    }

    @usableFromInline let stripes: [Stripe]

    /// Sixteen stripes, each starting as `make()` makes it.
    public init(_ make: () -> State) {
        stripes = (0..<16).map { _ in Stripe(make()) }
    }

    /// Calls `body` with the calling thread's stripe, under its lock.
    ///
    /// Public and inlinable, so that callers in other modules get it specialised for their state
    /// (this compiler inlines no `package` function across modules): unspecialised, every call looks
    /// up the generic types' metadata, which costs a hit more than the lock itself.
    @inlinable
    public func withLock<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        #if canImport(Glibc)
            let thread = UInt64(pthread_self())
        #else
            let thread = UInt64(UInt(bitPattern: pthread_self()))
        #endif
        // The top four bits of a multiplicative hash of the thread's id.
        let stripe = stripes[Int(truncatingIfNeeded: (thread &* 0x9E37_79B9_7F4A_7C15) >> 60)]
        return stripe.state.withLock { state in body(&state) }
    }

    /// Calls `body` with each stripe in turn, each under its lock.
    public func forEach(_ body: (inout State) -> Void) {
        for stripe in stripes {
            stripe.state.withLock { state in body(&state) }
        }
    }
}
