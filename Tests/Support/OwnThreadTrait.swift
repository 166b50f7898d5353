import Testing

/// Runs each test of a suite (or one test) on a thread of its own (``offThePool(_:)``), apart from
/// the shared pool that every other test's tasks run on.
///
/// For tests that assert on the order in which their own tasks and an origin's threads do things
/// (a stylesheet requested before the page has finished arriving): on the shared pool, the test's
/// tasks wait behind the jobs of every test that runs at the same time, for as long as the busiest
/// of those keep the pool's few threads, while the origin's threads go on; on a thread of its own,
/// the test's tasks are scheduled by the system like the origin's.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await offThePool { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs the test's tasks on a thread of their own (see ``OwnThreadTrait``).
    public static var ownThread: Self { Self() }
}
