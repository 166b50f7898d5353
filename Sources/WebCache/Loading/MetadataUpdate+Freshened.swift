import CacheStore
import HTTPCaching

extension MetadataUpdate {
    /// The update that writes `freshened`, a stored response freshened by a 304 or by a HEAD that
    /// confirms it (RFC 9111 §4.3.4, §4.3.5), over entry `entryID`: its fields as the store keeps them
    /// (no hop-by-hop fields, no `Set-Cookie`), and its times and freshness.
    public init(entryID: Int64, freshened: StoredResponse) {
        self.init(entryID: entryID, headers: Loader.storedHeaders(freshened.headers),
                  requestTime: freshened.requestTime, responseTime: freshened.responseTime,
                  freshUntil: freshened.freshUntil, staleUntil: freshened.staleUntil)
    }
}
