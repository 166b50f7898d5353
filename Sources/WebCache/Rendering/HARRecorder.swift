import Archive
import FoundationEssentials
import HTTPCore
import Rendering
import Synchronization

/// Records a rendered preload as a HAR 1.2 log (``RenderOptions/harPath``): a HAR page for each
/// rendered page, and an entry for each request the browser made, as it made it, with the answer it
/// got (status, header fields, the whole body as the page saw it, decoded) and where that came from
/// (`_source`: `hit`, `stale`, `revalidated` or `network`). A request that got no response is an
/// entry with status 0 and the reason in `response._error`, as developer tools record one.
///
/// The browser never holds the session (its cookies and credentials are the loader's), so the log
/// holds none either. Entries are written as they are answered, from the tabs' tasks; the pages are
/// written when the log is closed.
final class HARRecorder: Sendable {
    private struct State {
        var writer: HARWriter?
        var pages: [HARPage] = []
        var problem: String?
    }

    /// The file's path, as given.
    let path: String
    private let state: Mutex<State>
    private let nextPage = Atomic(0)

    /// Creates (or truncates) the file at `path`.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be created.
    init(path: String) throws(ArchiveError) {
        let writer: HARWriter
        do {
            writer = try HARWriter(path: path, creator: "webcache", version: WebCache.version)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ArchiveError(reason: "\(error)")
        }
        state = Mutex(State(writer: writer))
        self.path = path
    }

    /// A new page's identifier in the log.
    func pageID() -> String {
        "page_\(nextPage.add(1, ordering: .relaxed).newValue)"
    }

    /// Adds the page `id` that loaded `url` from `started`, with its event times when it loaded.
    func addPage(id: String, url: URL, started: Date, load: PageLoad?) {
        func milliseconds(_ duration: Duration?) -> Double {
            guard let duration else { return -1 }
            return Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        }
        let page = HARPage(
            startedDateTime: started, id: id, title: url.redactedForMessages,
            pageTimings: .init(onContentLoad: milliseconds(load?.contentLoadedAfter),
                               onLoad: milliseconds(load?.loadedAfter)))
        state.withLock { $0.pages.append(page) }
    }

    /// Writes the entry of one answered request of page `pageID`, asked at `started` and answered
    /// `duration` seconds later. A request given up unanswered is not written.
    func record(
        _ request: InterceptedRequest, answer: InterceptedAnswer, outcome: RequestAnswerer.Record.Outcome,
        pageID: String, started: Date, duration: TimeInterval
    ) {
        var response: HAREntry.Response
        var source: String?
        switch (answer, outcome) {
        case (_, .abandoned):
            return
        case (.respond(let status, let headers, let body), _):
            response = HAREntry.Response(
                status: status, statusText: HTTPStatus.reasonPhrase(status) ?? "",
                headers: headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) },
                content: HAREntry.Content(body: body, mimeType: headers["Content-Type"] ?? ""))
            if let location = headers["Location"] { response.redirectURL = location }
            if case .loaded(_, let from, _, _) = outcome { source = from.rawValue }
            if case .passedThrough = outcome { source = ResponseSource.network.rawValue }
        case (.fail, _):
            response = HAREntry.Response(status: 0, statusText: "", headers: [],
                                         content: HAREntry.Content(size: 0, mimeType: "", text: nil, encoding: nil))
            if case .failed(let reason) = outcome { response._error = reason }
        }
        var harRequest = HAREntry.Request(
            method: request.method, url: request.url,
            headers: request.headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) })
        harRequest.bodySize = request.body?.count ?? 0
        let wait = max(0, duration) * 1000
        var entry = HAREntry(startedDateTime: started, time: wait, request: harRequest, response: response,
                             timings: HAREntry.Timings(send: 0, wait: wait, receive: 0))
        entry.pageref = pageID
        entry._source = source
        state.withLock { state in
            guard let writer = state.writer else { return }
            do {
                try writer.write(entry)
            } catch {
                state.problem = "writing stopped after an entry could not be written: \(error)"
                state.writer = nil
            }
        }
    }

    /// Ends the log with its pages and closes the file; returns why the log is not whole, if it is not.
    func close() -> String? {
        state.withLock { state in
            if let writer = state.writer {
                do {
                    try writer.close(pages: state.pages)
                } catch {
                    state.problem = "the log could not be ended: \(error)"
                }
                state.writer = nil
            }
            return state.problem
        }
    }
}
