import FoundationEssentials
import HTTPCore
import Rendering
import Synchronization

/// Answers the requests a page makes in the browser through the loader: the same store, cache
/// policies and session as every other load, so the browser itself never reaches the network and
/// never holds a credential.
///
/// GET and HEAD go through the store with the policy given (stored when fresh, revalidated or
/// fetched otherwise when preloading; from the store only, however stale, when viewing). Other
/// methods go to the network when online and are never stored; offline they get a 504. Event
/// streams are failed: they never end, and are not stored. Redirects go back to the browser, which
/// asks for their target, so that each hop is a request of its own and the page's URL is the one
/// the browser ends at. `Set-Cookie` never reaches the browser: the session stays webcache's.
///
/// The private-address rules of a preload hold here too (``AddressPolicy``): once the page's
/// document has come from a public address, nothing it asks for (and no further hop of its own
/// redirects) may go to a private one, checked before the request and again where the transport
/// connects.
struct RequestAnswerer: Sendable {
    /// Where one page's document came from, learnt from its responses as the page loads.
    final class PageAddress: Sendable {
        private let fromPublicAddress: Mutex<Bool>

        /// - Parameter isPublic: whether the page is reached from one that came from a public
        ///   address (a navigation it started), so that it may not come from a private one itself.
        init(fromPublicAddress isPublic: Bool = false) {
            fromPublicAddress = Mutex(isPublic)
        }

        /// Whether the page's document (its last redirect hop so far) came from a public address.
        var isPublic: Bool { fromPublicAddress.withLock { $0 } }

        fileprivate func documentAnswered(fromPublicAddress isPublic: Bool) {
            fromPublicAddress.withLock { $0 = isPublic }
        }
    }

    /// What became of one request.
    struct Record: Sendable {
        enum Outcome: Sendable {
            /// Answered through the store (GET or HEAD): `notStored` says why the store did not keep
            /// a response the page got (such as "response has no-store"); `nil` when it did.
            case loaded(status: Int, source: ResponseSource, networkBytes: Int64, notStored: String?)
            /// A request of another method, sent to the network as it was and not stored.
            case passedThrough(status: Int)
            /// Not answered with a response: the loader's reason, or why it was refused.
            case failed(String)
            /// Given up because the page was done (or the run stopped) before its answer came.
            case abandoned
        }

        var url: URL
        var method: String
        /// The requisite kind its resource type stands for, as the page edges name kinds.
        var kind: String
        var isPageDocument: Bool
        var outcome: Outcome

        /// Whether it is the page's document answered for good: with a response that is not a
        /// redirect, or failed.
        var isAnsweredDocument: Bool {
            guard isPageDocument else { return false }
            switch outcome {
            case .loaded(let status, _, _, _): return !(300..<400).contains(status)
            case .failed: return true
            case .passedThrough, .abandoned: return false
            }
        }
    }

    let loader: Loader
    let context: RequestContext
    let policy: CachePolicy
    /// Whether fresh entries are revalidated too (a refresh).
    let revalidatesFreshEntries: Bool
    let maximumBodySize: Int64?
    /// Hosts requests may not go to (``PreloadOptions/deniedHosts``), and the only ones they may
    /// when not empty (``PreloadOptions/allowedHosts``), as comparable hosts.
    let allowedHosts: Set<String>
    let deniedHosts: Set<String>
    let addresses = AddressPolicy()

    /// Header fields of the browser's request that are passed on: what it accepts, and the origin
    /// of a CORS request, for which an origin that answers CORS only when asked sends the
    /// `Access-Control-Allow-Origin` the browser then checks, offline too. The rest (its user
    /// agent, cookies, client hints) is the loader's to send.
    static let forwardedFields = ["Accept", "Accept-Language", "Content-Type", "Origin"]
    /// Header fields of a response that the browser does not get: the session's cookies, and the
    /// framing of a body it gets whole and decoded.
    static let withheldFields = ["Set-Cookie", "Set-Cookie2", "Content-Encoding", "Content-Length",
                                 "Transfer-Encoding", "Connection", "Keep-Alive"]

    /// Answers `request` of the page that `page` follows, returning the answer for the browser and
    /// what became of it.
    func answer(_ request: InterceptedRequest, of page: PageAddress) async -> (InterceptedAnswer, Record) {
        let kind = Self.kind(of: request.resourceType)
        guard let url = URL(parsing: request.url), url.isHTTP else {
            let placeholder = URL(string: "about:blank")!
            return (.fail, Record(url: placeholder, method: request.method, kind: kind,
                                  isPageDocument: request.isPageDocument, outcome: .failed("not an http(s) URL")))
        }
        var record = Record(url: url.cacheKey, method: request.method, kind: kind,
                            isPageDocument: request.isPageDocument, outcome: .failed(""))
        let method = HTTPMethod(rawValue: request.method)
        // Chromium may type an event stream's request `Other`; its Accept field says what it is.
        if request.resourceType == "EventSource" || request.headers["Accept"] == "text/event-stream" {
            record.outcome = .failed("an event stream never ends; it is not stored")
            return (.fail, record)
        }
        let fromPublicPage = page.isPublic
        // Looked up here, where waiting for the resolver holds up this request alone.
        if fromPublicPage, let host = url.host { await addresses.resolve([host]) }
        if let refusal = refusal(of: url, fromPublicPage: fromPublicPage) {
            record.outcome = .failed(refusal)
            return (.fail, record)
        }
        let isStoredMethod = method == .get || method == .head
        if !isStoredMethod, policy == .returnCacheDataDontLoad {
            record.outcome = .failed("a \(request.method) request is not sent while offline")
            return (Self.gatewayTimeout(), record)
        }
        var webRequest = WebRequest(url: url, method: method)
        for name in Self.forwardedFields {
            if let value = request.headers[name] { webRequest.headers[name] = value }
        }
        // Chromium adds its Accept-Language after the interception sees the request: added here, so
        // that a page that varies on it is stored, and found offline, for what the browser sends.
        if webRequest.headers["Accept-Language"] == nil, !loader.defaultHeaders.contains("Accept-Language") {
            webRequest.headers["Accept-Language"] = BrowserRequestFields.acceptLanguage
        }
        if isStoredMethod {
            webRequest.body = nil
            if revalidatesFreshEntries { webRequest.headers["Cache-Control"] = "max-age=0" }
        } else {
            webRequest.body = request.body ?? Data()
        }
        webRequest.followsRedirects = false
        webRequest.maximumBodySize = maximumBodySize
        webRequest.refusesPrivateAddresses = fromPublicPage
        do {
            let response = try await loader.load(url, request: webRequest, policy: policy, context: context)
            // Offline nothing reaches the network, so where the page came from does not matter.
            if request.isPageDocument, policy != .returnCacheDataDontLoad {
                let fromPublicAddress = fromPublicPage ? true : await addresses.isFromPublicAddress(response)
                page.documentAnswered(fromPublicAddress: fromPublicAddress)
            }
            let body = try await response.body.collect()
            var headers = response.headers
            for name in Self.withheldFields { headers.remove(name) }
            if isStoredMethod {
                record.outcome = .loaded(status: response.status, source: response.source,
                                         networkBytes: response.source == .network ? Int64(body.count) : 0,
                                         notStored: response.source == .network ? response.notStoredReason : nil)
            } else {
                record.outcome = .passedThrough(status: response.status)
            }
            return (.respond(status: response.status, headers: headers, body: body), record)
        } catch let error where error is CancellationError || Task.isCancelled {
            record.outcome = .abandoned
            return (.fail, record)
        } catch let error as WebCacheError where error.code == .notCached {
            record.outcome = .failed("not in the store")
            return (Self.gatewayTimeout(), record)
        } catch {
            record.outcome = .failed("\(error)")
            return (.fail, record)
        }
    }

    /// Why `url` may not be requested, if it may not: the preload's allowed and denied hosts, and a
    /// private address asked for by a page that came from a public one.
    func refusal(of url: URL, fromPublicPage: Bool) -> String? {
        let host = url.host?.lowercased() ?? ""
        if deniedHosts.contains(host) { return "the host \(host) is denied" }
        if !allowedHosts.isEmpty, !allowedHosts.contains(host) {
            return "the host \(host) is not among the allowed hosts"
        }
        if !addresses.allows(url, fromPublicAddress: fromPublicPage) {
            return "a page on a public address may not reach the private address of \(host)"
        }
        return nil
    }

    /// What the page gets for something the store does not have, as a gateway answers offline.
    static func gatewayTimeout() -> InterceptedAnswer {
        .respond(status: 504, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"],
                 body: Data("Not in the store, and webcache is offline.\n".utf8))
    }

    /// The page-edge kind for a protocol resource type.
    static func kind(of resourceType: String) -> String {
        switch resourceType {
        case "Document": "document"
        case "Stylesheet": "stylesheet"
        case "Script": "script"
        case "Image": "image"
        case "Font": "font"
        case "Media": "media"
        case "Manifest": "manifest"
        case "XHR", "Fetch": "data"
        default: "other"
        }
    }
}
