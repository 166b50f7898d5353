import FoundationEssentials
import HTTPCore

extension StoredResponse {
    /// This stored response freshened by a 304 (RFC 9111 §4.3.4): its header fields merged with the
    /// 304's (``HTTPCachePolicy/mergedHeaders(stored:notModified:)``) and its request and response
    /// times replaced by those of the validation exchange, so that age and freshness start again
    /// from the 304's `Date` and `Age`. Status and secondary key are kept.
    public func freshened(with notModified: HTTPResponseHead, requestTime: Date, responseTime: Date) -> StoredResponse {
        StoredResponse(
            status: status,
            headers: HTTPCachePolicy.mergedHeaders(stored: headers, notModified: notModified.headers),
            requestTime: requestTime,
            responseTime: responseTime,
            varyKey: varyKey
        )
    }
}
