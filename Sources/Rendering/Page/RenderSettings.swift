/// How a page is loaded in a tab: the device it is shown on, and when it counts as done.
public struct RenderSettings: Sendable, Hashable {
    /// The viewport in CSS pixels.
    public var viewportWidth = 1280
    public var viewportHeight = 800
    /// Device pixels per CSS pixel.
    public var devicePixelRatio = 1.0
    /// Whether the device is a phone or tablet: pages are laid out by the mobile viewport rules (their
    /// `<meta name=viewport>`, 980 pixels wide without one), and its pointer is a touch screen.
    public var isMobile = false
    /// User preference media features the page sees, by name (`prefers-color-scheme`: `dark`).
    public var mediaFeatures: [String: String] = [:]
    /// The `User-Agent` the page sees and sends; the browser's own when `nil`.
    public var userAgent: String?
    /// How long no request may be in flight after the load event before the page is done.
    public var settle: Duration = .milliseconds(300)
    /// The longest a page may take; it is done then, whatever it is doing.
    public var timeout: Duration = .seconds(30)
    /// Whether the page is scrolled to its bottom after its load event, so that lazy content loads
    /// (and back to the top before it is done, so that a screenshot shows the top).
    public var scrolls = false
    /// Whether a navigation away from the page's document (a script setting `location`, a form
    /// sent) is stopped, so that the document stays and what the page loads is its own; when
    /// `false`, the tab follows it. Only with interception.
    public var stopsNavigations = false

    /// The defaults: a 1280×800 desktop window, 300 ms settle time, a 30 s cap, no scrolling.
    public init() {}
}

/// How a page load ended.
public struct PageLoad: Sendable, Hashable {
    /// Whether the cap passed before the page settled.
    public var hitCap: Bool
    /// The status the tab's document was answered with (after redirects), when it was intercepted.
    public var documentStatus: Int?
    /// How long after the navigation started the document's `DOMContentLoaded` and `load` events
    /// fired, when they did.
    public var contentLoadedAfter: Duration?
    public var loadedAfter: Duration?
    /// The icons the document declares (`<link rel=icon>`), as absolute URLs, when the after-load
    /// script ran: a favicon request for another URL is the browser's own, not the page's.
    public var iconURLs: [String] = []
    /// The navigations of the page that were stopped (``RenderSettings/stopsNavigations``): the
    /// document requests they made, in the order made, then the one its `<meta http-equiv=refresh>`
    /// would make (a delayed refresh may come after the page is done).
    public var stoppedNavigations: [InterceptedRequest] = []
}
