import CCurl

/// The easy handles of ended transfers, kept for the next ones on one ``CurlEventLoop``'s thread.
///
/// `curl_easy_reset` puts a handle back to the state `curl_easy_init` makes it in (every option at
/// its default; the multi handle's connections and caches are not the handle's and stay), without
/// freeing and allocating again what libcurl keeps per handle: a run of many small transfers spent
/// 3 % of its time making and cleaning up handles. A handle is taken back only once it is out of the
/// multi handle, before its transfer frees what the handle's options pointed at.
final class CurlHandles {
    private var idle: [UnsafeMutableRawPointer] = []
    /// The most handles kept: more than that were only needed for a burst.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    deinit {
        for easy in idle { curl_easy_cleanup(easy) }
    }

    /// A handle for a new transfer: a kept one, else a new one.
    func take() -> UnsafeMutableRawPointer {
        if let easy = idle.popLast() { return easy }
        guard let easy = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory.") }
        return easy
    }

    /// Takes back the handle of a transfer that has ended and is out of the multi handle: reset and
    /// kept, or cleaned up when ``capacity`` are kept already.
    func recycle(_ easy: UnsafeMutableRawPointer) {
        guard idle.count < capacity else {
            curl_easy_cleanup(easy)
            return
        }
        curl_easy_reset(easy)
        idle.append(easy)
    }
}
