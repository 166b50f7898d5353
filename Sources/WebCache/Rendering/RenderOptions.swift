import FoundationEssentials
import Rendering

/// How pages are rendered in headless Chromium for ``PreloadOptions/render`` and ``WebCache/view(_:options:)``.
public struct RenderOptions: Sendable, Hashable {
    /// The browser's executable; `nil` finds `chromium` (or `chromium-browser`, `google-chrome`) on
    /// the search path.
    public var chromiumPath: String?
    /// How long no request may be in flight after a page's load event before the page is done.
    public var settle: Duration = .milliseconds(300)
    /// The longest one page may take; it is done then, and the report lists it among
    /// ``PreloadReport/cappedPages``.
    public var timeout: Duration = .seconds(30)
    /// Whether each page is scrolled to its bottom after its load event, so that lazy content loads.
    public var scrolls = false
    /// How long the browser may leave a command unanswered before it is taken to hang: it is then
    /// killed, the pages it held fail, and a new browser renders the rest.
    public var commandTimeout: Duration = .seconds(30)
    /// A HAR 1.2 file that a rendered preload records itself in: a page for each page rendered, and
    /// an entry for each request the browser made, with the answer it got from webcache (body
    /// included) and where that came from (`_source`). `nil` records nothing. A file that cannot be
    /// written is a failure of the report; the pages are preloaded all the same.
    public var harPath: String?

    /// The defaults: Chromium from the search path, 300 ms settle time, 30 s per page, no scrolling,
    /// no recording.
    public init() {}

    /// Why no browser can be started with these options (the one given is not an executable file,
    /// or none is on the search path), naming what to do; `nil` when one is found. A caller asks
    /// before any work, where each page would otherwise fail with it.
    public var browserProblem: String? {
        do {
            _ = try browserPath()
            return nil
        } catch {
            return error.message
        }
    }

    /// The browser's executable: ``chromiumPath``, or the one found on the search path.
    /// - Throws: ``RenderingError`` naming what to do when there is none.
    func browserPath() throws(RenderingError) -> String {
        try BrowserLocator.locate(explicit: chromiumPath, searchPath: ProcessInfo.processInfo.environment["PATH"])
    }
}
