import FoundationEssentials
import HTTPCore

/// What to do with a request, given the stored variants of its URL.
///
/// Returned by ``HTTPCachePolicy/decide(request:variants:now:)``.
///
/// `variant` is always an index into the array of stored responses that was passed in.
public enum CacheDecision: Sendable, Equatable {
    /// Serve the stored response; send no request.
    case fresh(variant: Int, age: TimeInterval)
    /// Serve the stored response although it is stale: the client allowed it with `max-stale`
    /// (`revalidate == false`), or `stale-while-revalidate` allows it while the caller validates it
    /// in the background (`revalidate == true`).
    case stale(variant: Int, age: TimeInterval, revalidate: Bool)
    /// Send the request with `conditionalHeaders` added (`If-None-Match` with the entity tags of
    /// every matching variant, `If-Modified-Since` with the `Last-Modified` of `variant`). On 304,
    /// update the stored responses chosen by ``HTTPCachePolicy/variantsToFreshen(_:notModified:)``.
    case validate(variant: Int, conditionalHeaders: HTTPHeaders)
    /// Send the request unconditionally: nothing stored can be used or validated.
    case miss
    /// The request has `only-if-cached` and no stored response satisfies it: answer 504 (RFC 9111 §5.2.1.7).
    case unsatisfiable

    /// The stored response the decision serves or validates, if any.
    public var variant: Int? {
        switch self {
        case .fresh(let variant, _), .stale(let variant, _, _), .validate(let variant, _): variant
        case .miss, .unsatisfiable: nil
        }
    }
}
