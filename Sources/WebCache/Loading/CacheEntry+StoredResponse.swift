import CacheStore
import HTTPCaching

extension CacheEntry {
    /// The entry as the caching rules see it.
    var storedResponse: StoredResponse {
        StoredResponse(status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
                       varyKey: varyKey)
    }
}
