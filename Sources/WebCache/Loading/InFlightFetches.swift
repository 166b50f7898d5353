import CacheStore
import Synchronization

/// Coalesces concurrent network fetches of the same request, after Nuke's task pool.
///
/// The first caller for a key leads: it does the transfer and streams the body to its own caller.
/// Later callers wait for the leader's outcome and then read the entry it stored, so two concurrent
/// loads of one URL and variant make one request. When the leader could not store the response
/// (not storable, failed, abandoned), each follower fetches for itself.
final class InFlightFetches: Sendable {
    /// How a leader's fetch ended, as followers see it.
    enum Outcome: Sendable {
        /// The leader stored (or freshened) `entry`, which came from `source` (network or revalidated).
        case stored(CacheEntry, source: ResponseSource)
        case notStored
    }

    /// What two requests agree on when they share a transfer: partition, method, URL and every
    /// header field, as one text. Its hash is worked out once, when the key is made: the table
    /// hashes a key to join, to finish and to make room, and a page's key holds the browser's
    /// `Accept` field, a few hundred bytes to hash each time.
    struct Key: Hashable, Sendable {
        let text: String
        private let hash: Int

        init(_ text: String) {
            self.text = text
            hash = text.hashValue
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.hash == rhs.hash && lhs.text == rhs.text }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    /// Roomy from the start: at three quarters full (a table's most before it grows) removing a
    /// key moves a long run of the keys after it.
    private let flights = Mutex<[Key: Flight]>(Dictionary(minimumCapacity: 256))

    /// Either makes the caller the leader for `key` (returning a ``Lead`` it must resolve), or
    /// returns the flight to wait on.
    func join(_ key: Key) -> Either {
        flights.withLock { flights in
            // One look-up of the key: the entry is made in place when there is none, and then
            // this caller leads.
            var made: Flight?
            let flight = Self.flight(in: &flights[key, default: Self.made(into: &made)])
            if let made { return .lead(Lead(key: key, flight: made, fetches: self)) }
            return .follow(flight)
        }
    }

    /// A new flight, kept in `made` too, so that the caller knows it was made.
    private static func made(into made: inout Flight?) -> Flight {
        let flight = Flight()
        made = flight
        return flight
    }

    /// The flight at an entry of the table, reached in place.
    private static func flight(in entry: inout Flight) -> Flight { entry }

    enum Either: Sendable {
        case lead(Lead)
        case follow(Flight)
    }

    fileprivate func finish(_ key: Key, flight: Flight, outcome: Outcome) {
        flights.withLock { flights in
            // Removed with one look-up; put back in the rare case that it is another's flight.
            if let removed = flights.removeValue(forKey: key), removed !== flight { flights[key] = removed }
        }
        flight.resolve(outcome)
    }

    /// The leader's handle: resolving it releases every follower. Resolving twice has no effect.
    struct Lead: Sendable {
        let key: Key
        let flight: Flight
        let fetches: InFlightFetches

        func resolve(_ outcome: Outcome) {
            fetches.finish(key, flight: flight, outcome: outcome)
        }
    }

    /// One fetch in progress, awaited by its followers.
    final class Flight: Sendable {
        private enum State {
            case pending([Int: CheckedContinuation<Outcome, Never>], nextID: Int)
            case done(Outcome)
        }

        private let state = Mutex(State.pending([:], nextID: 0))

        /// Waits for the leader; a cancelled follower stops waiting and sees `.notStored`.
        func wait() async -> Outcome {
            let id = state.withLock { state -> Int? in
                guard case .pending(let waiters, let nextID) = state else { return nil }
                state = .pending(waiters, nextID: nextID + 1)
                return nextID
            }
            guard let id else { return outcome ?? .notStored }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let immediate = state.withLock { state -> Outcome? in
                        switch state {
                        case .done(let outcome):
                            return outcome
                        case .pending(var waiters, let nextID):
                            if Task.isCancelled { return .notStored }
                            waiters[id] = continuation
                            state = .pending(waiters, nextID: nextID)
                            return nil
                        }
                    }
                    if let immediate { continuation.resume(returning: immediate) }
                }
            } onCancel: {
                let continuation = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
                    guard case .pending(var waiters, let nextID) = state else { return nil }
                    let continuation = waiters.removeValue(forKey: id)
                    state = .pending(waiters, nextID: nextID)
                    return continuation
                }
                continuation?.resume(returning: .notStored)
            }
        }

        private var outcome: Outcome? {
            state.withLock { state in
                if case .done(let outcome) = state { return outcome }
                return nil
            }
        }

        fileprivate func resolve(_ outcome: Outcome) {
            let waiters = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
                guard case .pending(let waiters, _) = state else { return [] }
                state = .done(outcome)
                return Array(waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: outcome) }
        }
    }
}
