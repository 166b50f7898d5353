import FoundationEssentials

/// The outcome of a preload run.
public struct PreloadReport: Sendable, Hashable {
    /// A URL that failed or was skipped, and why.
    public struct Problem: Sendable, Hashable {
        public var url: String
        public var reason: String
    }

    /// Pages asked for (including those reached through links).
    public var pages = 0
    /// Pages among ``pages`` that were rendered because a rendered page navigated to them by itself
    /// (``PreloadEvent/navigated(url:from:)``).
    public var followedPages = 0
    /// Pages whose own fetch failed (their failures are among ``failures``).
    public var failedPages = 0
    /// Pages among ``unfinished``.
    public var unfinishedPages = 0
    /// Pages stored whose requisites were not all fetched or failed before the run was interrupted:
    /// they may not show complete offline yet. Always 0 for a run that ran to its end.
    public var pagesMissingRequisites = 0
    /// Resources in the store at the end of the run (pages included), by where they came from.
    public var sources: [ResponseSource: Int] = [:]
    /// Body bytes that crossed the network.
    public var networkBytes: Int64 = 0
    /// Requests sent to the network, retries and the replays of a re-authentication included; not
    /// those that never left (waiting for a token when the run stopped, withdrawn at a sign-out).
    public var requests = 0
    /// URLs that could not be stored.
    public var failures: [Problem] = []
    /// URLs fetched whose responses the caching rules keep out of the store, with why (such as
    /// "response has no-store"): the pages that need them are not complete offline. Not failures:
    /// the origin asked for it.
    public var notStored: [Problem] = []
    /// References left out on purpose.
    public var skipped: [Problem] = []
    /// URLs the run found (pages included) that it neither stored nor failed on, because it was
    /// interrupted before their fetch started or ended; 0 when it ran to its end.
    public var unfinished = 0
    /// Whether the run's task was cancelled: the fetches in flight were given up, those waiting
    /// never started, and the pages that had not settled (the page, or something it needs, among
    /// ``unfinished``) keep the requisites an earlier run recorded for them, since this run did not
    /// find out all they need.
    public var interrupted = false
    /// Whether an interrupted run stopped before the end of its list of pages: the pages listed
    /// after those it read (counted in ``pages``) were neither fetched nor counted. The list is read
    /// as the run goes, a window of pages at a time, and not read on once the run is interrupted:
    /// its writer may still be writing. Always `false` for a run that ran to its end.
    public var listUnread = false
    /// Rendered pages (``PreloadOptions/render``) that were still busy when their time ran out
    /// (``RenderOptions/timeout``): what they had requested by then is stored.
    public var cappedPages: [String] = []
    /// Requests of other methods than GET and HEAD that rendered pages sent (analytics, beacons):
    /// sent to the network as they were and never stored.
    public var passedThrough = 0
    /// Wall time of the run, in seconds.
    public var duration: TimeInterval = 0

    /// Resources stored or confirmed, whatever their source.
    public var completed: Int { sources.values.reduce(0, +) }

    /// Whether everything asked for is in the store.
    public var succeeded: Bool { failures.isEmpty && unfinished == 0 }
}
