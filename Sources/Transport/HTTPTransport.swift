import HTTPCore

/// Something that sends one HTTP request and streams back the response.
///
/// ``CurlTransport`` is the default implementation; `URLSessionTransport` (module `WebCacheURLSession`)
/// serves platforms without libcurl.
/// Redirects are never followed: a 3xx response is returned as received, so the caller can follow it,
/// cache it, or stop.
public protocol HTTPTransport: Sendable {
    /// Sends the request; returns when the response head has arrived; the body streams after.
    ///
    /// - Throws: ``TransportError`` when no response head arrives, or `CancellationError` when the
    ///   calling task is cancelled first.
    func send(_ request: HTTPRequest) async throws -> TransportResponse
}
