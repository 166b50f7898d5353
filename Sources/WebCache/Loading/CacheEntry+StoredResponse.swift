import CacheStore
import HTTPCaching
import HTTPCore

extension CacheEntry {
    /// The entry as the caching rules see it.
    public var storedResponse: StoredResponse {
        StoredResponse(status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
                       varyKey: varyKey)
    }

    /// Whether the stored response may answer requests differently by their fields: it was stored
    /// under a Vary key, or names fields in `Vary`.
    var variesByRequest: Bool {
        !varyKey.isEmpty || headers.contains("Vary")
    }

    /// The `Content-Length` its stored body is served with, whatever framing the origin used (RFC 9110
    /// §8.6): the body's length is known. `nil` for an entry without a body.
    var servedContentLength: String? {
        bodyID != nil ? String(bodySize) : nil
    }
}
