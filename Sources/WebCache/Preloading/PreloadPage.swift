import FoundationEssentials
import HTTPCore

/// A page to preload, resolved and checked once by ``WebCache/preloadPage(for:)``: its URL is
/// absolute, `http` or `https`, carries no user name or password, names a host and port a
/// connection can use, and is in the form the store keys entries by.
///
/// A list of URLs read line by line (the command line's) resolves each line once this way, reports
/// the lines that cannot be used with their line numbers, and hands the pages to
/// ``WebCache/preload(pages:options:events:)``, which takes them as they are.
public struct PreloadPage: Sendable, Hashable {
    /// The page's URL, as the store keys it (``Foundation/URL/cacheKey``).
    public let url: URL

    init(checked url: URL) {
        self.url = url.cacheKey
    }

    /// A page whose URL is checked and already its own cache key.
    init(key url: URL) {
        self.url = url
    }
}
