import FoundationEssentials
import HTTPCore
import Sessions
import Transport

extension WebCache {
    /// Who the instance says the signed-in user is, and the session it opened to say so.
    public struct InstanceUser: Sendable, Hashable {
        /// The user id from the instance's answer: a non-empty string (a JSON number as its text).
        public let id: String
        /// The cookies of the session the request kept or opened, for
        /// ``Configuration-swift.struct/sessionCookies``: the cache then carries that session on
        /// instead of opening another.
        public let cookies: CookieJar.Snapshot
    }

    /// Asks the instance who the user behind `provider`'s credentials is: sends a GET for
    /// `whoAmIURL` with a session (the bearer token, then cookies, re-authenticating as any load
    /// does) and reads the user id from the JSON answer at `field`, a dotted path such as `sub` (an
    /// OpenID Connect userinfo answer) or `result.user_name`. Nothing is stored.
    ///
    /// Call it before opening the cache, to name the user's partition after what the instance says
    /// (``IdentityKey/instanceUser(_:instance:)``) rather than after how the credentials are obtained,
    /// and hand its cookies on, so that the instance sees one session, not two. When
    /// `configuration` already names a user whose cookies are kept
    /// (``Configuration-swift.struct/persistsCookies``), the request starts from that user's saved
    /// session, so that a session still open on the instance is used rather than another opened.
    ///
    /// ```swift
    /// let user = try await WebCache.instanceUser(
    ///     at: URL(string: "https://instance.example.com/oauth/userinfo")!, field: "sub", configuration: configuration)
    /// configuration.userID = IdentityKey.instanceUser(user.id, instance: configuration.instanceURL!)
    /// configuration.sessionCookies = user.cookies
    /// ```
    ///
    /// - Parameters:
    ///   - whoAmIURL: the "who am I" resource of the instance; it must be on the instance's origin.
    ///   - field: where in the JSON answer the id is: object keys separated by dots.
    ///   - configuration: the instance URL, the authorization provider and the transport settings.
    /// - Throws: ``WebCacheError`` with code `authorization` when there is no provider or instance, the
    ///   URL is not on the instance, the instance refuses, or the answer holds no id at `field`;
    ///   `network` when the request fails; `store` when the saved cookies cannot be read.
    public static func instanceUser(at whoAmIURL: URL, field: String, configuration: Configuration) async throws
        -> InstanceUser
    {
        guard let provider = configuration.authorization, let instanceURL = configuration.instanceURL else {
            throw WebCacheError(.authorization, "Asking the instance who the user is needs credentials and the instance URL.")
        }
        let name = whoAmIURL.redactedForMessages
        guard whoAmIURL.isSameOrigin(as: instanceURL) else {
            throw WebCacheError(
                .authorization,
                "The who-am-I URL \(name) is not on the instance \(instanceURL.redactedForMessages); the user's "
                    + "credentials are sent only there.")
        }
        let jar = CookieJar()
        if configuration.persistsCookies, let userID = configuration.userID, !userID.isEmpty {
            let partition = SessionIdentity.user(id: userID).partitionName
            if let saved = try CookieFile(storePath: configuration.storePath, partition: partition).load() {
                jar.restore(saved)
            }
        }
        if let cookies = configuration.sessionCookies { jar.restore(cookies) }
        let session = Session(
            configuration: Session.Configuration(instanceURL: instanceURL, identity: .user(id: "who-am-i"),
                                                 policy: configuration.sessionPolicy),
            provider: provider, cookieJar: jar)
        let transport: any HTTPTransport
        do {
            transport = try configuration.transport ?? CurlTransport(configuration: configuration.transportConfiguration)
        } catch {
            throw WebCacheError(.network, "The network transport could not be started.", cause: error)
        }
        var request = HTTPRequest(url: whoAmIURL, headers: ["Accept": "application/json"])
        for field in configuration.requestHeaders where !request.headers.contains(field.name) {
            request.headers.append(name: field.name, value: field.value)
        }
        let body: Data
        let status: Int
        let location: String?
        do {
            let response = try await SessionSending(session: session).send(
                request, through: transport, logger: configuration.logger)
            status = response.head.status
            location = response.head.headers["Location"]
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let error as WebCacheError {
            throw error
        } catch {
            throw WebCacheError(.network, "The who-am-I request to \(name) failed.", cause: error)
        }
        guard (200..<300).contains(status) else {
            // Where a redirect led, such as a login page the session policy does not know.
            let target = (300..<400).contains(status)
                ? location.flatMap { URL(parsing: $0, relativeTo: whoAmIURL)?.absoluteURL } : nil
            throw WebCacheError(
                .authorization, "The instance answered the who-am-I request to \(name) with HTTP \(status)"
                    + (target.map { ", a redirect to \($0.redactedForMessages)." } ?? "."))
        }
        guard let id = Self.userID(in: body, at: field) else {
            throw WebCacheError(
                .authorization, "The answer to the who-am-I request to \(name) has no user id at '\(field)'.")
        }
        return InstanceUser(id: id, cookies: jar.snapshot())
    }

    /// The non-empty string (or number) at the dotted path `field` of the JSON object in `body`.
    static func userID(in body: Data, at field: String) -> String? {
        var value = try? JSONValue.parse(body)
        for key in field.split(separator: ".") {
            value = value?[String(key)]
        }
        switch value {
        case .string(let text)?: return text.isEmpty ? nil : text
        // A whole number as an integer ("42", not "42.0"), as Foundation's NSNumber wrote it, and all
        // its digits: an id above 2⁵³ is not rounded.
        case .integer(let whole)?: return String(whole)
        case .number(let number)?: return Int64(exactly: number).map { String($0) } ?? "\(number)"
        default: return nil
        }
    }
}
