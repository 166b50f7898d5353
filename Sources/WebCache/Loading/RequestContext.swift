import CacheStore
import FoundationEssentials
import HTTPCore
import Transport

/// Who a load is for: the partition its responses live in, and the session that sends its requests.
struct RequestContext: Sendable {
    /// The partition of anonymous requests.
    static let guestPartition = "guest"

    var partition: String
    var session: any RequestSending
    /// Whether a redirect from the first URL to the second may be followed (the preloader's address policy,
    /// which may wait for a resolver).
    var allowsRedirect: @Sendable (_ from: URL, _ to: URL) async -> Bool = { _, _ in true }
    /// Whether the work is still wanted: no longer once the user it was begun for signed out, in this
    /// process or another that shares the store, and what it receives is then not stored (asked in the
    /// saving transaction, after the sign-out's).
    var saveCondition: CacheStore.SaveCondition?

    /// Whether responses are kept apart from other identities (anything but the guest partition).
    var isPartitioned: Bool { partition != RequestContext.guestPartition }

    /// A context that sends requests as they are, in the guest partition.
    static let guest = RequestContext(partition: guestPartition, session: DirectSending())
}

/// Sends a request on behalf of an identity: adds its credentials, and handles what its session needs.
protocol RequestSending: Sendable {
    func send(_ request: HTTPRequest, through transport: any HTTPTransport, logger: Logger) async throws
        -> TransportResponse
}

/// Sends requests unchanged: no credentials.
struct DirectSending: RequestSending {
    func send(_ request: HTTPRequest, through transport: any HTTPTransport, logger: Logger) async throws
        -> TransportResponse
    {
        try await transport.send(request)
    }
}
