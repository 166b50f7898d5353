import FoundationEssentials
import HTTPCore

/// The URLs that references resolved to lately, so that loading the same reference again skips
/// trimming, parsing and checking it: what `WebCache.resolve(_:)` returns depends only on the
/// reference and the configuration, which a cache never changes. Failures are not kept. Kept per
/// stripe of threads (a gateway's connection threads each look up every request's URL), each
/// bounded: once ``limit`` references are kept, they are dropped and it starts over.
final class ResolvedReferences: Sendable {
    /// The most references kept in one stripe.
    static let limit = 256

    private let urls = ThreadStripes<[String: URL]> { [:] }

    /// The URL `reference` resolved to, if kept.
    func url(for reference: String) -> URL? {
        urls.withLock { $0[reference] }
    }

    /// Keeps `url` as what `reference` resolves to.
    func keep(_ url: URL, for reference: String) {
        urls.withLock { urls in
            if urls.count >= Self.limit { urls.removeAll(keepingCapacity: true) }
            urls[reference] = url
        }
    }
}
