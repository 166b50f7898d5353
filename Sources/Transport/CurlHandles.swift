import CCurl

/// The easy handles of one loop thread that no transfer holds, kept for the next transfers: a handle
/// reset to its defaults (`curl_easy_reset`) costs less than one made and freed for every request,
/// and a run of many small requests makes one per request. Used only on the loop thread.
final class CurlHandles {
    /// The most handles kept idle; past it a handle given back is freed.
    let limit: Int
    private var idle: [UnsafeMutableRawPointer] = []

    init(limit: Int) {
        self.limit = limit
    }

    deinit {
        for easy in idle { ccurl_easy_cleanup(easy) }
    }

    /// A handle with every option at its default: an idle one, or a new one.
    func take() -> UnsafeMutableRawPointer {
        if let easy = idle.popLast() { return easy }
        guard let easy = ccurl_easy_init() else { fatalError("curl_easy_init failed: out of memory.") }
        return easy
    }

    /// Takes back a handle no transfer uses (it is in no multi handle), reset to its defaults, so that
    /// it keeps no option, callback or pointer of the transfer that used it; one that is not
    /// `reusable`, or past the limit, is freed.
    func giveBack(_ easy: UnsafeMutableRawPointer, reusable: Bool = true) {
        guard reusable, idle.count < limit else { return ccurl_easy_cleanup(easy) }
        ccurl_easy_reset(easy)
        idle.append(easy)
    }

    /// How many handles wait to be taken.
    var idleCount: Int { idle.count }
}
