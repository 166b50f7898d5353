import HTTPCore
import Sessions
import Transport

/// Sends requests for a signed-in ``Session``: the bearer token first, cookies after, and one replay
/// with a fresh token when the instance answers with its login page or an expiry status such as 401.
///
/// The login redirect never reaches the loader, so it is never stored under the URL that was asked
/// for; a second login redirect for the same request fails with a clear error instead of looping.
/// A request with a streamed body is not replayed (the stream is spent): it fails with a clear error.
struct SessionSending: RequestSending {
    let session: Session
    /// The session's ``Session/signOutCount`` when the work began: a sign-out since ends it.
    var signOutCount: Int?
    /// The store's count of the user's sign-outs, and the count when the work began: a sign-out since,
    /// by any process that shares the store, ends it too.
    var storeSignOuts: (counter: StoreSignOuts, begun: Int64)?

    func send(_ request: HTTPRequest, through transport: any HTTPTransport, logger: Logger) async throws
        -> TransportResponse
    {
        var outgoing = request
        var ticket = try await prepare(&outgoing, replaying: nil)
        while true {
            let response: TransportResponse
            do {
                response = try await transport.send(outgoing)
            } catch {
                // Requests waiting for this one to open the session go on without its answer.
                await session.requestEnded(withoutResponse: ticket)
                if let error = error as? TransportError, error.code == .withdrawn {
                    throw WebCacheError(
                        .authorization,
                        "The user signed out while the request for \(request.url.redactedForMessages) waited to "
                            + "be sent; it was not sent.",
                        cause: error)
                }
                throw error
            }
            switch await session.process(response: response.head, for: ticket) {
            case .proceed:
                return response
            case .replayWithFreshToken:
                guard request.bodyStream == nil else {
                    throw WebCacheError(
                        .authorization,
                        "The session expired while \(request.url.redactedForMessages) was sent with a streamed body, "
                            + "which cannot be sent a second time; sign-in was not retried, send the request again.")
                }
                logger.info("session expired at \(request.url.redactedForMessages); signing in again")
                ticket = try await prepare(&outgoing, replaying: ticket)
            case .fail(let error):
                throw WebCacheError(.authorization, error.message, cause: error)
            }
        }
    }

    private func prepare(_ request: inout HTTPRequest, replaying ticket: SessionTicket?) async throws -> SessionTicket {
        // Asked before each request: the session's cookies and token are not sent on once the user
        // signed out, wherever that was done.
        if let storeSignOuts, !storeSignOuts.counter.holds(since: storeSignOuts.begun) {
            throw WebCacheError(
                .authorization,
                "The user signed out after the request for \(request.url.redactedForMessages) was begun (the store "
                    + "counts a sign-out since, made by this or another process); it was not sent.")
        }
        do {
            let prepared = try await session.prepare(&request, replaying: ticket, signOutCount: signOutCount)
            // A request that waits for a connection is not sent with the user's cookie or token once the
            // user signed out in this process (a sign-out by another process is seen before each request).
            let session = session
            request.sendCondition = SendCondition(reason: "the user signed out") {
                session.signOutCount == prepared.signOutCount
            }
            return prepared
        } catch {
            throw WebCacheError(.authorization, error.message, cause: error)
        }
    }
}
