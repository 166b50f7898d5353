import FoundationEssentials

/// One page of a HAR 1.2 log: a page load that the log's entries name in their ``HAREntry/pageref``.
public struct HARPage: Codable, Sendable, Hashable {
    /// When the page started to load, ISO 8601 with milliseconds.
    public var startedDateTime: String
    /// The page's identifier, unique in the log.
    public var id: String
    /// The page's title: its URL, in webcache's recordings.
    public var title: String
    /// When the page's events fired, in milliseconds after it started; `-1` where unknown.
    public var pageTimings: Timings

    /// The page's events.
    public struct Timings: Codable, Sendable, Hashable {
        public var onContentLoad: Double
        public var onLoad: Double

        public init(onContentLoad: Double, onLoad: Double) {
            self.onContentLoad = onContentLoad
            self.onLoad = onLoad
        }
    }

    /// Creates a page.
    public init(startedDateTime: Date, id: String, title: String, pageTimings: Timings) {
        self.startedDateTime = HARDate.format(startedDateTime)
        self.id = id
        self.title = title
        self.pageTimings = pageTimings
    }
}
