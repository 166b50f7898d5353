import CacheStore
import HTTPCaching
import HTTPCore

extension CacheEntry {
    /// The entry as the caching rules see it.
    var storedResponse: StoredResponse {
        StoredResponse(status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
                       varyKey: varyKey)
    }

    /// Whether the stored response may answer requests differently by their fields: it was stored
    /// under a Vary key, or names fields in `Vary`.
    var variesByRequest: Bool {
        !varyKey.isEmpty || headers.contains("Vary")
    }
}
