import FoundationEssentials
import HTTPCore
import Synchronization
import WebCache

/// Shows a preload as it runs: a live progress line on a terminal, one JSON object per event with
/// `--json`, failures as they happen otherwise, and a summary at the end.
final class PreloadProgress: Sendable {
    private struct State {
        var discovered = 0
        var done = 0
        var failed = 0
        var lastDraw = Date.distantPast
        var lineShown = false
    }

    private let json: Bool
    /// What the summary says the run did, in the past tense: "Preloaded" or "Refreshed".
    private let verb: String
    private let stdout: any TextOutput
    private let stderr: any TextOutput
    private let state = Mutex(State())

    /// - Parameters:
    ///   - pages: the number of pages given, which the progress line counts from (pages read from a
    ///     list as the run goes are counted by ``countListedPage()``).
    ///   - verb: what the summary says the run did, in the past tense.
    init(json: Bool, pages: Int = 0, verb: String = "Preloaded", stdout: any TextOutput, stderr: any TextOutput) {
        self.json = json
        self.verb = verb
        self.stdout = stdout
        self.stderr = stderr
        state.withLock { $0.discovered = pages }
    }

    /// Counts one more page given, read from the list as the run goes.
    func countListedPage() {
        state.withLock { $0.discovered += 1 }
    }

    /// Reports one event.
    func handle(_ event: PreloadEvent) {
        if json {
            stdout.write(JSONLine.encode(PreloadProgress.fields(of: event)) + "\n")
            return
        }
        let (line, failure) = state.withLock { state -> (String?, String?) in
            var failure: String?
            switch event {
            case .discovered:
                state.discovered += 1
            case .selected:
                break
            case .fetched:
                state.done += 1
            case .failed(let url, let reason):
                state.done += 1
                state.failed += 1
                failure = "failed \(url.redactedForMessages): \(reason)"
            case .skipped(let url, let reason):
                failure = "skipped \(url.redactedForMessages): \(reason)"
            case .navigated(let url, let page):
                state.discovered += 1
                failure = "followed navigation to \(url.redactedForMessages) "
                    + "(from \(page.redactedForMessages))"
            case .retrying(let url, let attempt, let delay, let reason):
                failure = "retrying \(url.redactedForMessages) (attempt \(attempt + 1) in \(String(printf: "%.1f", delay))s): \(reason)"
            }
            guard stderr.isTerminal else { return (nil, failure) }
            let now = Date()
            guard failure != nil || now.timeIntervalSince(state.lastDraw) > 0.1 else { return (nil, nil) }
            state.lastDraw = now
            state.lineShown = true
            return ("\r\u{1B}[K[\(state.done)/\(state.discovered)] \(state.failed) failed", failure)
        }
        if let failure {
            stderr.write((stderr.isTerminal ? "\r\u{1B}[K" : "") + "webcache: \(failure)\n")
        }
        if let line { stderr.write(line) }
    }

    /// Says on standard error that signal `number` is stopping the run, and that a second one ends
    /// it at once.
    func stopping(on number: Int32) {
        let clear = stderr.isTerminal ? "\r\u{1B}[K" : ""
        stderr.write(clear + "webcache: stopping on signal \(number) (a second one stops at once)\n")
    }

    /// Clears the progress line and prints the summary (to standard output; a JSON object with `--json`).
    /// - Parameter interrupted: whether a signal stopped the run; the summary then says so.
    func finish(_ report: PreloadReport, fileProblems: Int, interrupted: Bool) {
        if state.withLock({ $0.lineShown }) { stderr.write("\r\u{1B}[K") }
        if json {
            var fields = PreloadProgress.summaryFields(report)
            fields.insert(("interrupted", .bool(interrupted)), at: 1)
            fields.append(("invalidLines", .int(fileProblems)))
            stdout.write(JSONLine.encode(fields) + "\n")
            return
        }
        let sources = [ResponseSource.network, .revalidated, .hit, .stale]
            .map { "\(report.sources[$0] ?? 0) \($0)" }.joined(separator: ", ")
        let preloaded = report.pages - report.failedPages - report.unfinishedPages
        let pages = preloaded == report.pages && !interrupted ? "\(report.pages)" : "\(preloaded) of \(report.pages)"
        var text = interrupted ? "Interrupted: \(verb.lowercased())" : verb
        text += " \(pages) page(s)"
        if report.followedPages > 0 {
            text += " (\(report.followedPages) followed from a page's navigation)"
        }
        if report.pagesMissingRequisites > 0 {
            text += ", \(report.pagesMissingRequisites) of them without all they need"
        }
        text += ": \(report.completed) resource(s) in the store (\(sources)); "
        text += "\(ValueParsers.formatBytes(report.networkBytes)) over the network in \(report.requests) request(s), "
        text += String(printf: "%.2fs.\n", report.duration)
        if !report.failures.isEmpty {
            text += "\(report.failures.count) failed:\n"
            for problem in report.failures { text += "  \(problem.url): \(problem.reason)\n" }
        }
        if !report.notStored.isEmpty {
            text += "\(report.notStored.count) fetched and not stored, as their responses ask:\n"
            for problem in report.notStored { text += "  \(problem.url): \(problem.reason)\n" }
        }
        if !report.skipped.isEmpty {
            text += "\(report.skipped.count) skipped.\n"
        }
        if !report.cappedPages.isEmpty {
            text += "\(report.cappedPages.count) page(s) were still busy at the render timeout (stored as they were):\n"
            for page in report.cappedPages { text += "  \(page)\n" }
        }
        if report.passedThrough > 0 {
            text += "\(report.passedThrough) request(s) of other methods than GET and HEAD were sent and not stored.\n"
        }
        if report.unfinished > 0 {
            text += "\(report.unfinished) not fetched.\n"
        }
        if report.listUnread {
            text += "The rest of the URL list was not read: the pages it lists after those counted were not "
                + "fetched.\n"
        }
        if fileProblems > 0 {
            text += "\(fileProblems) line(s) of the URL file were skipped.\n"
        }
        stdout.write(text)
    }

    static func fields(of event: PreloadEvent) -> [(String, JSONLine.Value)] {
        switch event {
        case .discovered(let url, let kind, let page):
            [("event", "discovered"), ("url", .string(url.redactedForMessages)), ("kind", .string(kind)),
             ("in", .string(page.redactedForMessages))]
        case .fetched(let url, let status, let bytes, let source):
            [("event", "fetched"), ("url", .string(url.redactedForMessages)), ("status", .int(status)),
             ("bytes", .int(Int(bytes))), ("source", .string(source.rawValue))]
        case .failed(let url, let reason):
            [("event", "failed"), ("url", .string(url.redactedForMessages)), ("reason", .string(reason))]
        case .skipped(let url, let reason):
            [("event", "skipped"), ("url", .string(url.redactedForMessages)), ("reason", .string(reason))]
        case .navigated(let url, let page):
            [("event", "navigated"), ("url", .string(url.redactedForMessages)),
             ("from", .string(page.redactedForMessages))]
        case .selected(let url, let kind, let page, let fetched, let reason):
            [("event", fetched ? "chosen" : "skipped for this device"), ("url", .string(url.redactedForMessages)),
             ("kind", .string(kind)), ("in", .string(page.redactedForMessages)), ("reason", .string(reason))]
        case .retrying(let url, let attempt, let delay, let reason):
            [("event", "retrying"), ("url", .string(url.redactedForMessages)), ("attempt", .int(attempt)),
             ("delay", .double(delay)), ("reason", .string(reason))]
        }
    }

    /// The summary's fields, named in camelCase as every other command's `--json` report is.
    static func summaryFields(_ report: PreloadReport) -> [(String, JSONLine.Value)] {
        [
            ("event", "summary"), ("pages", .int(report.pages)), ("pagesFailed", .int(report.failedPages)),
            ("pagesUnfinished", .int(report.unfinishedPages)), ("pagesFollowed", .int(report.followedPages)),
            ("pagesMissingRequisites", .int(report.pagesMissingRequisites)), ("completed", .int(report.completed)),
            ("network", .int(report.sources[.network] ?? 0)), ("revalidated", .int(report.sources[.revalidated] ?? 0)),
            ("hit", .int(report.sources[.hit] ?? 0)), ("stale", .int(report.sources[.stale] ?? 0)),
            ("failed", .int(report.failures.count)), ("notStored", .int(report.notStored.count)),
            ("skipped", .int(report.skipped.count)),
            ("unfinished", .int(report.unfinished)), ("listUnread", .bool(report.listUnread)),
            ("pagesCapped", .int(report.cappedPages.count)),
            ("passedThrough", .int(report.passedThrough)), ("requests", .int(report.requests)),
            ("networkBytes", .int(Int(report.networkBytes))), ("seconds", .double(report.duration)),
        ]
    }
}
