/// What the loader does after ``Session/process(response:finalURL:for:)``.
public enum SessionOutcome: Sendable {
    /// Use the response.
    case proceed
    /// The session expired: prepare the request again with ``Session/prepare(_:replaying:)`` and resend it.
    case replayWithFreshToken
    /// Give up on the request with this error.
    case fail(SessionError)
}
