import FoundationEssentials
import HTTPCore
import Sessions
import Transport

/// Sends a guest's requests (no credentials) and refuses the instance's login page: a request to the
/// instance that it answers with a redirect to its login page (``SessionPolicy``) fails with
/// ``SessionError/Code/guestRedirectedToLogin``, so that the login page is never followed, stored or
/// served as the page that was asked for.
struct GuestSending: RequestSending {
    let instanceURL: URL
    let policy: SessionPolicy

    func send(_ request: HTTPRequest, through transport: any HTTPTransport, logger: Logger) async throws
        -> TransportResponse
    {
        let response = try await transport.send(request)
        guard request.url.isSameOrigin(as: instanceURL), policy.isLoginRedirect(response.head, for: request.url) else {
            return response
        }
        let error = SessionError(
            code: .guestRedirectedToLogin,
            message: "The instance redirected the guest request for \(request.url.redactedForMessages) to its login "
                + "page; the page needs a signed-in user: sign in with a token (on the command line, "
                + "--token-command, --token-file or --jwt-command).")
        throw WebCacheError(.authorization, error.message, cause: error)
    }
}
