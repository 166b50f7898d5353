import FoundationEssentials
import HTTPCore

/// A request the page made, paused by the browser until it is answered.
public struct InterceptedRequest: Sendable, Hashable {
    /// The URL, fragment removed (as the browser sends it).
    public var url: String
    /// The method, such as `GET`.
    public var method: String
    /// The header fields the browser would send.
    public var headers: HTTPHeaders
    /// The request content, for methods that have one.
    public var body: Data?
    /// What the page wants it for, as the protocol names it: `Document`, `Stylesheet`, `Script`,
    /// `Image`, `Font`, `XHR`, `Fetch`, `Media`, `EventSource`, `Ping`, `Other`, ….
    public var resourceType: String
    /// Whether it loads the tab's own document (the page, or a redirect on the way to it).
    public var isPageDocument: Bool
}

/// How a paused request is answered.
public enum InterceptedAnswer: Sendable, Hashable {
    /// A response: its status, header fields and whole body.
    case respond(status: Int, headers: HTTPHeaders, body: Data)
    /// A network error, as the page sees one (a failed `fetch()`, a broken image).
    case fail
}
