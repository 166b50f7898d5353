import FoundationEssentials
import Synchronization

/// Requests per client address, as a token bucket per address: `burst` requests at once, then
/// `perSecond` more each second. What is over is refused (429) rather than queued, so one busy
/// client cannot hold threads that others need.
final class ClientRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let perSecond: Double
    private let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Beyond this many addresses, the buckets that have refilled are forgotten (they hold nothing).
    private static let forgetBeyond = 4_096

    init(perSecond: Double, burst: Int) {
        precondition(perSecond > 0 && burst > 0, "A rate limit needs a positive rate and burst.")
        self.perSecond = perSecond
        self.burst = Double(burst)
    }

    /// Takes one request from `client`'s bucket; `false` when it is empty.
    func admits(_ client: String, now: ContinuousClock.Instant = .now) -> Bool {
        buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + max(0, seconds) * perSecond)
            bucket.updated = now
            let admitted = bucket.tokens >= 1
            if admitted { bucket.tokens -= 1 }
            buckets[client] = bucket
            if buckets.count > Self.forgetBeyond {
                let (perSecond, burst) = (perSecond, burst)
                buckets = buckets.filter { entry in
                    let idle = now - entry.value.updated
                    return entry.value.tokens + Double(idle.components.seconds) * perSecond < burst
                }
            }
            return admitted
        }
    }
}
