import FoundationEssentials
import HTTPCore
import Synchronization

/// One tab of a ``Browser`` (a page target, attached with a flattened session).
public final class BrowserTab: Sendable {
    let connection: DevToolsConnection
    /// The target's id; also the id of its main frame.
    public let targetID: String
    let sessionID: String

    init(connection: DevToolsConnection, targetID: String, sessionID: String) {
        self.connection = connection
        self.targetID = targetID
        self.sessionID = sessionID
    }

    /// Sends a command to this tab.
    @discardableResult
    func send(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        try await connection.send(method, params, session: sessionID)
    }

    // MARK: - Loading

    /// What the page loop reacts to.
    private enum Input: Sendable {
        case event(DevToolsEvent)
        case tick
        /// An intercepted request was answered; `key` is what the lifecycle counts it as.
        case answered(key: String, documentStatus: Int?)
        case navigated(error: String?)
        /// The after-load script ran; the icons the document declares, and where its
        /// `<meta http-equiv=refresh>` goes.
        case afterLoadDone(icons: [String], refresh: String?)
        /// A command failed in a way that means the browser is gone or hangs.
        case browserFailed(any Error)
        /// The connection closed.
        case ended
        /// The tab was closed (its window, by the user).
        case closed
    }

    /// Loads `url` in this tab until it is done (see ``PageLifecycle``).
    ///
    /// With `answer`, every request the page makes is paused and answered by it (`Fetch` with a
    /// pattern for every URL); without, the browser loads from the network itself. Requests whose
    /// answer is pending when the page is done are failed.
    /// - Throws: ``RenderingError`` when the navigation fails or the browser exits, crashes or hangs;
    ///   `CancellationError` when the calling task is cancelled.
    public func load(
        _ url: URL, settings: RenderSettings,
        answer: (@Sendable (InterceptedRequest) async -> InterceptedAnswer)?
    ) async throws -> PageLoad {
        try await run(url, settings: settings, answer: answer, whenLoaded: nil)
    }

    /// Loads `url` as ``load(_:settings:answer:)`` does, calls `whenLoaded` once the page is done,
    /// and then goes on answering what the page asks for (the pages it navigates to included) until
    /// the tab is closed or the browser exits: a tab in a window, for as long as someone uses it.
    /// - Returns: how the first load went.
    /// - Throws: as ``load(_:settings:answer:)`` does while the page loads.
    public func show(
        _ url: URL, settings: RenderSettings,
        answer: @escaping @Sendable (InterceptedRequest) async -> InterceptedAnswer,
        whenLoaded: @escaping @Sendable (PageLoad) -> Void
    ) async throws -> PageLoad {
        try await run(url, settings: settings, answer: answer, whenLoaded: whenLoaded)
    }

    private func run(
        _ url: URL, settings: RenderSettings, answer: (@Sendable (InterceptedRequest) async -> InterceptedAnswer)?,
        whenLoaded: (@Sendable (PageLoad) -> Void)?
    ) async throws -> PageLoad {
        let events = connection.events(for: sessionID)
        // A tab that is shown ends when it is detached: the browser says so on its own session.
        let browserEvents = whenLoaded == nil ? nil : connection.events(for: nil)
        let workers = WorkerSessions()
        defer {
            connection.stopEvents(for: sessionID)
            for worker in workers.all { connection.stopEvents(for: worker) }
            if browserEvents != nil { connection.stopEvents(for: nil) }
        }
        do {
            try await prepare(settings, intercepting: answer != nil)
        } catch let error as DevToolsError {
            throw RenderingError(.browserFailed, "The browser could not prepare a tab for \(url.absoluteString): \(error)")
        }
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        let clock = ContinuousClock()
        let start = clock.now
        var lifecycle = PageLifecycle(settle: settings.settle, cap: settings.timeout, start: start)
        var documentStatus: Int?
        var contentLoadedAt: ContinuousClock.Instant?
        var loadedAt: ContinuousClock.Instant?
        var iconURLs: [String] = []
        let document = DocumentAnswer()
        var stoppedNavigations: [InterceptedRequest] = []
        var refreshURL: String?
        /// How the page has loaded so far, for the load that ends now.
        func pageLoad(hitCap: Bool) -> PageLoad {
            var navigations = stoppedNavigations
            // A refresh the document declares with a delay may come after the page is done: it is a
            // navigation of the page all the same.
            if settings.stopsNavigations, let refreshURL, !navigations.contains(where: { $0.url == refreshURL }) {
                navigations.append(InterceptedRequest(url: refreshURL, method: "GET", headers: [:], body: nil,
                                                      resourceType: "Document", isPageDocument: true))
            }
            return PageLoad(hitCap: hitCap, documentStatus: documentStatus,
                            contentLoadedAfter: contentLoadedAt.map { $0 - start },
                            loadedAfter: loadedAt.map { $0 - start }, iconURLs: iconURLs,
                            stoppedNavigations: navigations)
        }
        /// How the first load went, once it is done (a shown tab goes on after it).
        var loaded: PageLoad?
        return try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            group.addTask {
                for await event in events { input.yield(.event(event)) }
                input.yield(.ended)
            }
            if let browserEvents {
                group.addTask { [sessionID] in
                    for await event in browserEvents where event.method == "Target.detachedFromTarget"
                        && event.params["sessionId"]?.stringValue == sessionID
                    {
                        input.yield(.closed)
                    }
                }
            }
            group.addTask {
                while (try? await Task.sleep(for: .milliseconds(50))) != nil { input.yield(.tick) }
            }
            group.addTask { [self] in
                do {
                    let result = try await send("Page.navigate", ["url": .string(url.absoluteString)])
                    input.yield(.navigated(error: result["errorText"]?.stringValue))
                } catch {
                    input.yield(Self.failure(of: error, doing: "navigate"))
                }
            }
            for await next in inputs {
                try Task.checkCancellation()
                // Once a shown page has loaded, its window being closed or its browser going ends it.
                if let loaded {
                    switch next {
                    case .closed, .ended, .browserFailed: return loaded
                    default: break
                    }
                }
                let now = clock.now
                var action = PageLifecycle.Action.none
                switch next {
                case .tick:
                    action = lifecycle.tick(at: now)
                case .event(let event):
                    if event.method == "Page.domContentEventFired", contentLoadedAt == nil { contentLoadedAt = now }
                    if event.method == "Page.loadEventFired", loadedAt == nil { loadedAt = now }
                    let navigations = settings.stopsNavigations ? document : nil
                    action = handle(event, lifecycle: &lifecycle, now: now, answer: answer, stopping: navigations,
                                    stopped: &stoppedNavigations, workers: workers, group: &group, input: input)
                case .answered(let key, let status):
                    if let status { documentStatus = status }
                    action = lifecycle.requestEnded(key, at: now)
                case .navigated(let error):
                    if let error, !error.isEmpty, error != "net::ERR_ABORTED" {
                        throw RenderingError(.navigationFailed, "\(url.absoluteString) could not be loaded: \(error).")
                    }
                case .afterLoadDone(let icons, let refresh):
                    iconURLs = icons
                    refreshURL = refresh
                    action = lifecycle.afterLoadDone(at: now)
                case .browserFailed(let error):
                    let what = if case DevToolsError.unresponsive = error { "stopped answering" } else { "exited or crashed" }
                    throw RenderingError(.browserFailed, "The browser \(what) while it rendered \(url.absoluteString): "
                        + "\(error)")
                case .ended:
                    throw RenderingError(.browserFailed, "The browser exited or crashed while it rendered "
                        + "\(url.absoluteString).")
                case .closed:
                    // Only a shown tab hears that it was closed: its user closed it before the page had
                    // settled, which ends the view as closing it later does.
                    return pageLoad(hitCap: false)
                }
                switch action {
                case .none:
                    continue
                case .runAfterLoad:
                    let script = Self.afterLoadScript(scrolls: settings.scrolls)
                    group.addTask { [self] in
                        do {
                            let result = try await send("Runtime.evaluate", [
                                "expression": .string(script), "awaitPromise": true, "returnByValue": true,
                            ])
                            let value = result["result"]?["value"]
                            let icons = value?["icons"]?.arrayValue?.compactMap(\.stringValue) ?? []
                            input.yield(.afterLoadDone(icons: icons, refresh: value?["refresh"]?.stringValue))
                        } catch DevToolsError.protocolError {
                            // The page's document was replaced while it ran: the user of a shown tab
                            // followed a link, or the page went on to a document the tab does not stop
                            // (`about:blank`). Its own document loaded, and what the script would read
                            // is gone with it.
                            input.yield(.afterLoadDone(icons: [], refresh: nil))
                        } catch {
                            input.yield(Self.failure(of: error, doing: "run its after-load script"))
                        }
                    }
                case .finish(let outcome):
                    let load = pageLoad(hitCap: outcome == .capped)
                    guard let whenLoaded else { return load }
                    if loaded == nil {
                        loaded = load
                        whenLoaded(load)
                    }
                }
            }
            try Task.checkCancellation()
            if let loaded { return loaded }
            throw RenderingError(.browserFailed, "The browser exited or crashed while it rendered \(url.absoluteString).")
        }
    }

    /// Enables what the page loop listens to, turns the browser's HTTP cache off, and sets the device.
    private func prepare(_ settings: RenderSettings, intercepting: Bool) async throws {
        if intercepting {
            try await send("Fetch.enable", Self.everyRequest)
            // Workers the page starts (its service worker) are targets of their own, attached to
            // this session and held until told to run, so that their requests are answered too.
            try await send("Target.setAutoAttach", ["autoAttach": true, "waitForDebuggerOnStart": true,
                                                    "flatten": true])
        }
        try await send("Network.enable")
        try await send("Network.setCacheDisabled", ["cacheDisabled": true])
        try await send("Page.enable")
        try await send("Emulation.setDeviceMetricsOverride", [
            "width": .integer(Int64(settings.viewportWidth)), "height": .integer(Int64(settings.viewportHeight)),
            "deviceScaleFactor": .number(settings.devicePixelRatio), "mobile": .bool(settings.isMobile),
        ])
        if settings.isMobile {
            try await send("Emulation.setTouchEmulationEnabled", ["enabled": true, "maxTouchPoints": 5])
        }
        if !settings.mediaFeatures.isEmpty {
            let features = settings.mediaFeatures.sorted { $0.key < $1.key }.map { name, value -> JSONValue in
                ["name": .string(name), "value": .string(value)]
            }
            try await send("Emulation.setEmulatedMedia", ["features": .array(features)])
        }
        if let userAgent = settings.userAgent {
            try await send("Emulation.setUserAgentOverride", ["userAgent": .string(userAgent)])
        }
    }

    /// Whether the page's own document has been answered with a response that is not a redirect: a
    /// document request of the tab's main frame after that is a navigation away from it.
    private final class DocumentAnswer: Sendable {
        private let answered = Mutex(false)

        var isAnswered: Bool { answered.withLock { $0 } }

        func markAnswered() {
            answered.withLock { $0 = true }
        }
    }

    /// The `Fetch.enable` parameters that intercept every request before it is sent.
    private static let everyRequest: JSONValue = ["patterns": [["urlPattern": "*", "requestStage": "Request"]]]

    /// The sessions of the workers attached to a tab while it loads a page.
    private final class WorkerSessions: Sendable {
        private let sessions = Mutex<[String]>([])

        var all: [String] { sessions.withLock { $0 } }

        func add(_ session: String) {
            sessions.withLock { $0.append(session) }
        }
    }

    /// What the page lifecycle counts in flight from the moment the page asks to navigate away from
    /// its answered document until the browser sends the navigation's request (or the navigation
    /// ends without one): a `beforeunload` handler, or a busy browser, may hold the request for
    /// longer than the settle time, and the page is not done while it is on its way.
    private static let askedNavigation = "navigation"

    /// Reacts to one event of the tab or of a worker attached to it. With `stopping`, a navigation
    /// away from the page's answered document is stopped (and its request added to `stopped`) instead
    /// of answered.
    private func handle(
        _ event: DevToolsEvent, lifecycle: inout PageLifecycle, now: ContinuousClock.Instant,
        answer: (@Sendable (InterceptedRequest) async -> InterceptedAnswer)?, stopping: DocumentAnswer?,
        stopped: inout [InterceptedRequest], workers: WorkerSessions, group: inout ThrowingTaskGroup<Void, any Error>,
        input: AsyncStream<Input>.Continuation
    ) -> PageLifecycle.Action {
        let params = event.params
        switch event.method {
        case "Page.frameRequestedNavigation"
        where stopping?.isAnswered == true && params["frameId"]?.stringValue == targetID
            && params["disposition"]?.stringValue == "currentTab":
            // Its request, which will be stopped, may come later than the settle time.
            return lifecycle.requestStarted(Self.askedNavigation, at: now)
        case "Network.requestWillBeSent":
            guard let id = params["requestId"]?.stringValue else { return .none }
            return lifecycle.requestStarted("network:" + id, at: now)
        case "Network.loadingFinished", "Network.loadingFailed":
            guard let id = params["requestId"]?.stringValue else { return .none }
            let action = lifecycle.requestEnded("network:" + id, at: now)
            // Ended at its response already: its body reaching the page may lead it to ask for more.
            return action == .none ? lifecycle.activity(at: now) : action
        case "Network.responseReceived" where answer != nil:
            // Intercepted, it was answered with its whole body: it ends here, since the browser
            // finishes loading a `fetch()` response that is not stored (`no-store`) only once the
            // page reads it, which the page may never do.
            guard let id = params["requestId"]?.stringValue else { return .none }
            return lifecycle.requestEnded("network:" + id, at: now)
        case "Page.loadEventFired":
            return lifecycle.loadEventFired(at: now)
        // A navigation of the main frame that ends without a request the tab stops (to `about:blank`,
        // to a `mailto:` link, within the document) ends what its ask began.
        case "Page.frameNavigated" where params["frame"]?["id"]?.stringValue == targetID,
            "Page.navigatedWithinDocument" where params["frameId"]?.stringValue == targetID:
            return lifecycle.requestEnded(Self.askedNavigation, at: now)
        case "Page.frameStoppedLoading" where params["frameId"]?.stringValue == targetID:
            let ended = lifecycle.requestEnded(Self.askedNavigation, at: now)
            // A navigation stopped while the document loaded leaves it without a load event: it has
            // loaded as far as it will.
            guard ended == .none, !stopped.isEmpty else { return ended }
            return lifecycle.loadEventFired(at: now)
        case "Target.attachedToTarget":
            // A worker of the page (a service worker, whose script is fetched once it runs), attached
            // only when intercepting: its requests are intercepted on its own session and answered
            // as the page's.
            guard let worker = params["sessionId"]?.stringValue else { return .none }
            let workerEvents = connection.events(for: worker)
            workers.add(worker)
            group.addTask {
                for await event in workerEvents { input.yield(.event(event)) }
            }
            group.addTask { [connection] in
                _ = try? await connection.send("Fetch.enable", Self.everyRequest, session: worker)
                _ = try? await connection.send("Runtime.runIfWaitingForDebugger", session: worker)
            }
            return .none
        case "Fetch.requestPaused":
            guard let answer, let fetchID = params["requestId"]?.stringValue else { return .none }
            // Answered on the session it was paused on: the tab's, or a worker's.
            let session = event.sessionID ?? sessionID
            let key = session == sessionID ? "fetch:" + fetchID : "fetch:\(session)/\(fetchID)"
            let request = interceptedRequest(params)
            // A navigation of the main frame away from the page's document (a script setting
            // `location`, a form sent): aborted, so the document stays, and what the page holds is
            // what its own document loaded.
            let stops = request.isPageDocument && stopping?.isAnswered == true
            if stops { stopped.append(request) }
            group.addTask { [self] in
                let reply = stops ? nil : await answer(request)
                var status: Int?
                do {
                    switch reply {
                    case .respond(let code, let headers, let body)?:
                        if request.isPageDocument {
                            status = code
                            if !(300..<400).contains(code) { stopping?.markAnswered() }
                        }
                        try await connection.send("Fetch.fulfillRequest", Self.fulfilment(fetchID, code, headers, body),
                                                  session: session)
                    case .fail?:
                        try await connection.send("Fetch.failRequest", ["requestId": .string(fetchID),
                                                                        "errorReason": "Failed"], session: session)
                    case nil:
                        try await connection.send("Fetch.failRequest", ["requestId": .string(fetchID),
                                                                        "errorReason": "Aborted"], session: session)
                    }
                } catch let error as DevToolsError {
                    // The page may have given the request up meanwhile: only a gone or hung browser matters.
                    if case .protocolError = error {} else {
                        input.yield(.browserFailed(error))
                        return
                    }
                } catch {
                    return
                }
                input.yield(.answered(key: key, documentStatus: status))
            }
            let action = lifecycle.requestStarted(key, at: now)
            // The navigation the page asked for has sent its request, which is in flight in its place.
            return stops && action == .none ? lifecycle.requestEnded(Self.askedNavigation, at: now) : action
        default:
            return .none
        }
    }

    private func interceptedRequest(_ params: JSONValue) -> InterceptedRequest {
        let request = params["request"] ?? [:]
        var headers = HTTPHeaders()
        if case .object(let members)? = request["headers"] {
            for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                if let value = value.stringValue { headers.append(name: name, value: value) }
            }
        }
        var body: Data?
        if let entries = request["postDataEntries"]?.arrayValue {
            body = entries.reduce(into: Data()) { data, entry in
                if let bytes = entry["bytes"]?.stringValue, let decoded = Data(base64Encoded: bytes) { data.append(decoded) }
            }
        } else if let text = request["postData"]?.stringValue {
            body = Data(text.utf8)
        }
        let type = params["resourceType"]?.stringValue ?? "Other"
        return InterceptedRequest(
            url: request["url"]?.stringValue ?? "", method: request["method"]?.stringValue ?? "GET", headers: headers,
            body: body, resourceType: type,
            isPageDocument: type == "Document" && params["frameId"]?.stringValue == targetID)
    }

    private static func fulfilment(_ fetchID: String, _ status: Int, _ headers: HTTPHeaders, _ body: Data) -> JSONValue {
        let fields = headers.map { field in JSONValue.object(["name": .string(field.name), "value": .string(field.value)]) }
        return ["requestId": .string(fetchID), "responseCode": .integer(Int64(status)),
                "responseHeaders": .array(fields), "body": .string(body.base64EncodedString())]
    }

    /// The input for a command that failed: the browser's end or hang, or nothing worse than a refusal.
    private static func failure(of error: any Error, doing what: String) -> Input {
        if let error = error as? DevToolsError, case .protocolError = error {
            return .navigated(error: "the browser refused to \(what): \(error)")
        }
        return .browserFailed(error)
    }

    /// What runs after the load event: with `scrolls`, a viewport at a time to the bottom, letting
    /// lazy content start, and back to the top; then two frames (at most half a second), so that
    /// the page has laid out and asked for the lazy images near the viewport. Its value holds the
    /// icons the document declares (`icons`), and the URL its first `<meta http-equiv=refresh>`
    /// goes to (`refresh`, without its fragment; `null` for none, or a refresh of the page itself),
    /// read as the HTML standard reads the attribute.
    static func afterLoadScript(scrolls: Bool) -> String {
        let scroll = """
            for (let y = 0; y < document.scrollingElement.scrollHeight; y += innerHeight) {
              scrollTo(0, y);
              await frames();
            }
            scrollTo(0, document.scrollingElement.scrollHeight);
            await frames();
            scrollTo(0, 0);
            """
        return """
            (async () => {
              const frames = () => Promise.race([
                new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve))),
                new Promise(resolve => setTimeout(resolve, 500)),
              ]);
              \(scrolls ? scroll : "")
              await frames();
              const icons = [...document.querySelectorAll('link[rel~="icon" i]')].map(link => link.href);
              const content = document.querySelector('meta[http-equiv="refresh" i]')?.content ?? '';
              const parts = /^\\s*[\\d.]+\\s*[;,]?\\s*(?:url\\s*=\\s*)?(.*)$/is.exec(content);
              let target = parts ? parts[1].trim() : '';
              if (/^['"]/.test(target)) target = target.slice(1).split(target[0])[0];
              let refresh = null;
              try {
                const url = new URL(target, document.baseURI);
                url.hash = '';
                if (target && url.href !== location.href.split('#')[0]) refresh = url.href;
              } catch {}
              return { icons, refresh };
            })()
            """
    }

    // MARK: - Capturing

    /// A PNG of the viewport as it is now.
    /// - Throws: ``DevToolsError``.
    public func screenshot() async throws -> Data {
        let result = try await send("Page.captureScreenshot", ["format": "png"])
        return Data(base64Encoded: result["data"]?.stringValue ?? "") ?? Data()
    }

    /// The page printed to PDF, backgrounds included.
    /// - Throws: ``DevToolsError``.
    public func pdf() async throws -> Data {
        let result = try await send("Page.printToPDF", ["printBackground": true])
        return Data(base64Encoded: result["data"]?.stringValue ?? "") ?? Data()
    }

    /// Evaluates a JavaScript expression in the page and returns its value (awaited if a promise).
    /// - Throws: ``DevToolsError``.
    public func evaluate(_ expression: String) async throws -> JSONValue {
        let result = try await send("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true,
                                                         "awaitPromise": true])
        return result["result"]?["value"] ?? .null
    }

    /// Sets header fields the browser adds to every request it sends itself (without interception).
    /// - Throws: ``DevToolsError``.
    public func setExtraHeaders(_ headers: [String: String]) async throws {
        try await send("Network.setExtraHTTPHeaders", ["headers": .object(headers.mapValues { .string($0) })])
    }

    /// Closes the tab.
    /// - Throws: ``DevToolsError`` when the browser has gone or does not answer: then it cannot be
    ///   trusted with more pages.
    public func close() async throws {
        do {
            try await connection.send("Target.closeTarget", ["targetId": .string(targetID)])
        } catch DevToolsError.protocolError {
            // The tab was gone already.
        }
    }
}
