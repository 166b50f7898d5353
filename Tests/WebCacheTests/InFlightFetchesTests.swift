import Testing
@testable import WebCache

/// The table of fetches in flight, which coalesces concurrent fetches of one key.
@Suite struct InFlightFetchesTests {
    /// The first caller leads and the next follows; once the flight ends, the next caller leads a
    /// new one, which a second resolution of the first leader leaves in place; keys do not meet.
    @Test func aLeaderResolvedTwiceLeavesTheNextFlightOfItsKeyInPlace() async throws {
        let fetches = InFlightFetches()
        guard case .lead(let first) = fetches.join(.init("k")) else { throw Failure("the first caller must lead") }
        guard case .follow(let early) = fetches.join(.init("k")) else { throw Failure("the second caller must follow") }
        guard case .lead(let other) = fetches.join(.init("other")) else { throw Failure("another key has its own flight") }
        first.resolve(.notStored)
        guard case .notStored = await early.wait() else { throw Failure("the follower must see the outcome") }

        guard case .lead(let second) = fetches.join(.init("k")) else { throw Failure("an ended flight leaves no leader") }
        first.resolve(.notStored)
        guard case .follow(let late) = fetches.join(.init("k")) else { throw Failure("the new flight must still be there") }
        second.resolve(.notStored)
        guard case .notStored = await late.wait() else { throw Failure("the new flight's follower must end") }
        guard case .lead = fetches.join(.init("k")) else { throw Failure("the new flight must be gone once resolved") }
        guard case .follow = fetches.join(.init("other")) else { throw Failure("the other key's flight must be untouched") }
        other.resolve(.notStored)
    }

    private struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
