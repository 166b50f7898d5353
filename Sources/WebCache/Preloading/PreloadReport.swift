import Foundation

/// The outcome of a preload run.
public struct PreloadReport: Sendable, Hashable {
    /// A URL that failed or was skipped, and why.
    public struct Problem: Sendable, Hashable {
        public var url: String
        public var reason: String
    }

    /// Pages asked for (including those reached through links).
    public var pages = 0
    /// Pages whose own fetch failed (their failures are among ``failures``).
    public var failedPages = 0
    /// Resources in the store at the end of the run (pages included), by where they came from.
    public var sources: [ResponseSource: Int] = [:]
    /// Body bytes that crossed the network.
    public var networkBytes: Int64 = 0
    /// Requests sent to the network, retries included.
    public var requests = 0
    /// URLs that could not be stored.
    public var failures: [Problem] = []
    /// References left out on purpose.
    public var skipped: [Problem] = []
    /// Wall time of the run, in seconds.
    public var duration: TimeInterval = 0

    /// Resources stored or confirmed, whatever their source.
    public var completed: Int { sources.values.reduce(0, +) }

    /// Whether everything asked for is in the store.
    public var succeeded: Bool { failures.isEmpty }
}
