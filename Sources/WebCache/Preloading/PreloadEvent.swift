import FoundationEssentials

/// Progress of a preload, reported as it happens.
public enum PreloadEvent: Sendable, Hashable {
    /// A reference was found: `url`, of `kind` (such as `stylesheet`, `image`, `font`), in `page`
    /// (the page or stylesheet it was written in).
    case discovered(url: URL, kind: String, in: URL)
    /// A resource is in the store: its status, the bytes that crossed the network, and where it came from.
    case fetched(url: URL, status: Int, bytes: Int64, source: ResponseSource)
    /// A resource could not be stored, and why.
    case failed(url: URL, reason: String)
    /// A reference whose fetching depends on the device (a `srcset` candidate, a CSS image, a font
    /// source, an icon) was chosen for it (`fetched`) or skipped, and why.
    case selected(url: URL, kind: String, in: URL, fetched: Bool, reason: String)
    /// A reference was not fetched on purpose (a denied host, a private address), and why.
    case skipped(url: URL, reason: String)
    /// A rendered page (`from`) navigated by itself to `url` (a client-side redirect: a script
    /// setting `location`, a form, a meta refresh), which is rendered as a page of its own.
    case navigated(url: URL, from: URL)
    /// A transient failure will be retried after `delay` seconds.
    case retrying(url: URL, attempt: Int, delay: TimeInterval, reason: String)
}
