import CacheStore
import FoundationEssentials
import HTTPCore
import Sessions
import Transport

/// The webcache library's front door: loads through the offline store, preloads pages with their
/// sub-resources, and manages the signed-in session.
///
/// ```swift
/// var configuration = WebCache.Configuration()
/// configuration.instanceURL = URL(string: "https://instance.example.com/")
/// let cache = try WebCache(configuration: configuration)
/// let page = try await cache.data(for: WebRequest("nav/home"))
/// print(page.source, page.body.count)   // network 18231, then hit 18231
/// await cache.close()
/// ```
///
/// Every async function has a completion-handler form (see `WebCache+Completion.swift`) for callers
/// that do not use Swift concurrency.
public final class WebCache: Sendable {
    /// The library's version, which recordings it writes name (and `webcache --version` prints).
    public static let version = "0.1.0"

    /// The configuration it was created with.
    public let configuration: Configuration
    /// The store, for inspecting, pruning and verifying.
    public let store: CacheStore
    let loader: Loader
    let session: Session?
    /// Keeps the session's cookies across runs, when ``Configuration-swift.struct/persistsCookies`` is set.
    let cookieKeeper: CookieKeeper?
    /// The store's count of the signed-in user's sign-outs, which ends the session when another
    /// process signs the user out; `nil` for a guest.
    let storeSignOuts: StoreSignOuts?
    /// What ``close()`` stops or waits for.
    let running = RunningWork()
    /// What ``resolve(_:)`` returned lately, by reference.
    let resolvedReferences = ResolvedReferences()

    /// Opens (or creates) the store and prepares the transport and the session.
    /// - Throws: ``WebCacheError`` when the store cannot be opened or the transport not started,
    ///   or the configuration is inconsistent (a token provider without a user id or instance URL), or
    ///   the saved cookies cannot be read (see ``Configuration-swift.struct/persistsCookies``).
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        // An inconsistent configuration fails before the store is opened.
        if let field = configuration.credentialFieldWithoutInstance {
            throw WebCacheError(
                .authorization,
                "The header field \(field) for every request needs the instance URL: credentials are sent only to "
                    + "the instance, and none is configured.")
        }
        var signIn: (provider: any AuthorizationProviding, instanceURL: URL, identity: SessionIdentity)?
        if let provider = configuration.authorization {
            guard let instanceURL = configuration.instanceURL else {
                throw WebCacheError(.authorization, "Signing in needs the instance URL; none is configured.")
            }
            // Without a user id, responses fetched with the user's credentials would land in the
            // guest partition, where every other identity can read them.
            guard let userID = configuration.userID, !userID.isEmpty else {
                throw WebCacheError(
                    .authorization,
                    "Signing in needs the user id that names the user's store partition; none is configured.")
            }
            signIn = (provider, instanceURL, SessionIdentity.user(id: userID))
        }
        var storeConfiguration = CacheStore.Configuration()
        storeConfiguration.byteLimit = configuration.maximumStoreSize
        storeConfiguration.readOnly = configuration.readOnly
        do {
            // The folder of the default store may not exist yet.
            if !configuration.readOnly { try CacheStore.createFolder(forStoreAt: configuration.storePath) }
            store = try CacheStore(path: configuration.storePath, configuration: storeConfiguration)
        } catch {
            throw WebCacheError(.store, "The store at '\(configuration.storePath)' cannot be opened.", cause: error)
        }
        if let (provider, instanceURL, identity) = signIn {
            // The session begins under the sign-outs counted so far: one by another process after
            // this ends it (``StoreSignOuts``).
            let signOuts: StoreSignOuts
            do {
                signOuts = StoreSignOuts(store: store, partition: identity.partitionName,
                                         count: try store.signOutCount(partition: identity.partitionName))
            } catch {
                throw WebCacheError(.store, "The store at '\(configuration.storePath)' cannot be read.", cause: error)
            }
            storeSignOuts = signOuts
            let jar = CookieJar()
            var keeper: CookieKeeper?
            if configuration.persistsCookies {
                let file = CookieFile(storePath: configuration.storePath, partition: identity.partitionName)
                if let snapshot = try file.load() { jar.restore(snapshot) }
                keeper = CookieKeeper(file: file, jar: jar, logger: configuration.logger,
                                      isCurrent: { signOuts.holds(since: signOuts.current) })
            }
            if let cookies = configuration.sessionCookies, !cookies.cookies.isEmpty {
                jar.restore(cookies)
                // Kept for the next run too, as a session this cache opened itself would be.
                keeper?.saveSoon()
            }
            cookieKeeper = keeper
            // Saved as soon as a session starts or is renewed, and soon after its cookies change, not
            // only at close, so that a run that is killed leaves the next one a session to carry on with.
            session = Session(
                configuration: Session.Configuration(instanceURL: instanceURL, identity: identity,
                                                     policy: configuration.sessionPolicy),
                provider: provider, cookieJar: jar, established: keeper?.saveNow, cookiesChanged: keeper?.saveSoon)
        } else {
            session = nil
            cookieKeeper = nil
            storeSignOuts = nil
        }
        let transport: any HTTPTransport
        if let configured = configuration.transport {
            transport = configured
        } else {
            do {
                transport = try CurlTransport(configuration: configuration.transportConfiguration)
            } catch {
                throw WebCacheError(.network, "The network transport could not be started.", cause: error)
            }
        }
        loader = Loader(store: store, transport: transport, logger: configuration.logger,
                        defaultHeaders: configuration.requestHeaders, credentialOrigin: configuration.instanceURL,
                        memoryCapacity: configuration.memoryCacheSize)
    }

    /// The partition this cache's responses live in: `guest`, or the signed-in user's.
    public var partition: String {
        session?.partitionName ?? RequestContext.guestPartition
    }

    /// The bytes of fresh responses kept in memory now
    /// (``Configuration-swift.struct/memoryCacheSize``): their bodies, and about a kilobyte for each head.
    public var currentMemoryUsage: Int {
        loader.memory?.bytes ?? 0
    }

    /// The context of work begun now: a signed-in user's ends with their session, at ``logout()`` or
    /// at a sign-out by another process that shares the store; a guest's refuses the login page.
    var context: RequestContext {
        guard let session, let storeSignOuts else {
            guard let instanceURL = configuration.instanceURL else { return .guest }
            return RequestContext(partition: RequestContext.guestPartition,
                                  session: GuestSending(instanceURL: instanceURL, policy: configuration.sessionPolicy))
        }
        let begun = session.signOutCount
        let stored = storeSignOuts.current
        return RequestContext(
            partition: session.partitionName,
            session: SessionSending(session: session, signOutCount: begun, storeSignOuts: (storeSignOuts, stored)),
            saveCondition: storeSignOuts.saveCondition(since: stored, holds: { session.signOutCount == begun }))
    }

    // MARK: - Loading

    /// Loads a request through the store, streaming the body.
    ///
    /// - Parameters:
    ///   - request: the URL (relative ones resolve against the instance URL), method and headers.
    ///   - policy: how the store is used; RFC 9111 rules by default.
    /// - Returns: the response, its source (hit, revalidated, network, stale) and its age.
    /// - Throws: ``WebCacheError``.
    public func load(_ request: WebRequest, policy: CachePolicy = .useProtocolCachePolicy) async throws -> WebResponse {
        let url = try resolve(request.url)
        return try await loader.load(url, request: request, policy: policy, context: context)
    }

    /// Loads a request through the store and reads the whole body.
    /// - Throws: ``WebCacheError``.
    public func data(for request: WebRequest, policy: CachePolicy = .useProtocolCachePolicy) async throws
        -> LoadedResponse
    {
        try await running.counted {
            let response = try await load(request, policy: policy)
            let limit = request.maximumBodySize.map { Int(clamping: $0) } ?? .max
            let body = try await response.body.collect(upTo: limit)
            return LoadedResponse(url: response.url, status: response.status, headers: response.headers,
                                  source: response.source, age: response.age, redirects: response.redirects,
                                  body: body)
        }
    }

    /// Resolves a URL string: absolute http(s) URLs as they are, anything else against the instance URL.
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/invalidURL`` naming the input (its
    ///   password hidden) and saying what is wrong (``HTTPURLCheck``: no host, a host that is no valid
    ///   name or address, a port outside 1 to 65535), also when it carries a user name or password.
    public func resolve(_ reference: String) throws -> URL {
        if let url = resolvedReferences.url(for: reference) { return url }
        let url = try Self.resolve(reference, against: configuration.instanceURL)
        resolvedReferences.keep(url, for: reference)
        return url
    }

    /// Resolves and checks a page reference once, as ``resolve(_:)`` does, for
    /// ``preload(pages:options:events:)``: a list of URLs resolves each line this way, reports the
    /// lines that cannot be used, and hands the pages on without their being parsed again.
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/invalidURL``, as ``resolve(_:)``.
    public func preloadPage(for reference: String) throws -> PreloadPage {
        // A line that is already a plain absolute URL in the store's key form, as nearly every line
        // of a list a program wrote is, is taken from its bytes (``HTTPURLCheck/plainURL(_:)``).
        if let url = HTTPURLCheck.plainURL(reference) { return PreloadPage(key: url) }
        // Not kept among the references resolved lately: a list names each page once.
        return PreloadPage(checked: try Self.resolve(reference, against: configuration.instanceURL))
    }

    /// Resolves a URL string as a cache configured with `instanceURL` does (``resolve(_:)``), without
    /// a cache: for what names a stored URL, so that it means what it means to a load or a preload.
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/invalidURL``, as ``resolve(_:)``;
    ///   its cause is the ``HTTPURLCheck/Problem`` when the URL is one no connection can use.
    public static func resolve(_ reference: String, against instanceURL: URL?) throws(WebCacheError) -> URL {
        let url = try resolveAllowingCredentials(reference, against: instanceURL)
        // A password in a URL would be sent by the transport and kept in the store's keys, readable by
        // anyone who inspects it; credentials come from the configured provider only.
        guard url.user == nil, url.password == nil else {
            throw WebCacheError(.invalidURL, "'\(URLReference.excerpt(reference))' carries a user name or password; "
                + "webcache does not send credentials from URLs.")
        }
        return url
    }

    private static func resolveAllowingCredentials(
        _ reference: String, against instanceURL: URL?
    ) throws(WebCacheError) -> URL {
        let trimmed = Self.trimmingWhitespace(reference)
        if trimmed.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
            || trimmed.unicodeScalars.contains(where: { $0.value > 0x7F && $0.properties.isWhitespace })
        {
            throw WebCacheError(.invalidURL, "'\(URLReference.excerpt(reference))' is not a URL: it contains spaces or control characters.")
        }
        let url: URL
        if URL.scheme(ofReference: trimmed) != nil {
            guard let absolute = URL(parsing: trimmed) else {
                throw WebCacheError(.invalidURL, "'\(URLReference.excerpt(reference))' is not a valid URL.")
            }
            url = absolute
        } else {
            guard let instanceURL else {
                throw WebCacheError(.invalidURL,
                                    "'\(URLReference.excerpt(reference))' is a relative URL, and no instance URL is "
                                        + "configured to resolve it against.")
            }
            do {
                url = try InstanceURL.resolve(trimmed, against: instanceURL)
            } catch {
                throw WebCacheError(.invalidURL, error.description, cause: error)
            }
        }
        // A host or port no connection can use fails here, naming the input, rather than in the transport.
        if let problem = HTTPURLCheck.problem(with: url) {
            throw WebCacheError(.invalidURL, "'\(URLReference.excerpt(reference))' \(problem).", cause: problem)
        }
        return url
    }

    /// `reference` without the whitespace (`CharacterSet.whitespaces`) around it; a reference that
    /// starts and ends with a visible ASCII character, as nearly every one does, is returned as it is
    /// without looking at its scalars, as every load resolves its URL.
    static func trimmingWhitespace(_ reference: String) -> String {
        let bytes = reference.utf8
        if let first = bytes.first, let last = bytes.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return reference
        }
        return reference.trimmingWhitespace()
    }

    // MARK: - Sessions

    /// Deletes the session cookies that runs with ``Configuration-swift.struct/persistsCookies`` kept
    /// beside the store at `storePath` for `userID`, without opening the store (which may not exist).
    /// - Throws: ``WebCacheError`` naming the cookie file when it exists and cannot be deleted.
    public static func removeSavedCookies(storePath: String, userID: String) throws {
        try CookieFile(storePath: storePath, partition: SessionIdentity.user(id: userID).partitionName).remove()
    }

    /// Signs out: drops the user's token and cookies, and deletes the user's private entries from the
    /// store in one transaction, which counts the sign-out (``CacheStore/signOut(partition:)``). Guest
    /// entries stay. Work begun before for the user (a load whose response is still on its way, a
    /// background revalidation), in this process or in another that shares the store, sends nothing
    /// more, and what it receives is neither stored nor taken into the cookies: it fails with the reason.
    /// - Throws: ``WebCacheError`` when the store cannot be changed or the saved cookies cannot be deleted.
    public func logout() async throws {
        guard let session, let storeSignOuts else { return }
        await session.logout()
        // The sign-out counts before the cookie file goes: another process that writes the file
        // after checks the count again (``CookieKeeper``).
        var failure: WebCacheError?
        do {
            let (_, count) = try await store.signOut(partition: session.partitionName)
            storeSignOuts.begin(count)
        } catch {
            failure = WebCacheError(.store, "The signed-in user's entries could not be removed from the store.",
                                    cause: error)
        }
        // Also when this run does not persist cookies: an earlier run may have.
        if let cookieKeeper {
            try await cookieKeeper.remove()
        } else {
            try CookieFile(storePath: configuration.storePath, partition: session.partitionName).remove()
        }
        if let failure { throw failure }
    }

    // MARK: - Lifecycle

    /// Waits for the revalidations that loads started after serving a stale response
    /// (`stale-while-revalidate`, RFC 5861 §3) to end. ``close()`` cancels those still running; a
    /// process about to end calls this first, so that the next one finds the entry revalidated.
    public func finishRevalidations() async {
        await loader.revalidations.waitForAll()
    }

    /// Stops the preloads and refreshes in flight (their reports say they were interrupted) and
    /// waits for them and for ``data(for:policy:)`` calls in flight to end; then ends background
    /// revalidations, saves the session's cookies if they persist (a failure is logged), and closes
    /// the store, writing pending hit counts. A preload or refresh started after is interrupted at
    /// once; other calls then fail with the store closed.
    public func close() async {
        await running.close()
        await loader.shutdown()
        if let cookieKeeper {
            do {
                try await cookieKeeper.save()
            } catch {
                configuration.logger.log(.error, "\(error)")
            }
        }
        do {
            try await store.close()
        } catch {
            // Entries are safe by then; what can be lost is the last hit counts, so a warning.
            configuration.logger.log(
                .warning, "The store at '\(configuration.storePath)' did not close cleanly: \(error)")
        }
    }
}

/// Helpers for naming URLs in messages.
enum URLReference {
    /// A reference for messages (``MessageText/excerpt(_:limit:)``), up to 100 characters.
    static func excerpt(_ text: String) -> String {
        MessageText.excerpt(text, limit: 100)
    }
}
