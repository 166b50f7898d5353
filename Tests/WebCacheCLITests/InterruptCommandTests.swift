import CacheStore
import ChildProcess
import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The real `webcache preload` and `refresh` stopped by SIGINT or SIGTERM early in a long run: they
/// wind down, keep what was stored and what settled, print a summary that says they were
/// interrupted, and exit with the shell's code for the signal; a second signal ends them at once.
///
/// Each long run lists the origin's `/held.html` with the gate closed, so that it cannot end before
/// the signal, however slowly the test runs beside a busy suite; the origin also waits 100 ms before
/// each response, so that the signal finds the forty numbered pages (seven responses each) half done.
@Suite(.timeLimit(.minutes(5)))
final class InterruptCommandTests: OriginStoreFixture, @unchecked Sendable {
    init() throws {
        try super.init(latency: .milliseconds(100))
    }

    private var instance: String { server.baseURL.absoluteString }

    /// `/pages/1.html` to `/pages/<count>.html`, as absolute URLs.
    private func numberedPages(_ count: Int) -> [String] {
        (1...count).map { url("/pages/\($0).html") }
    }

    /// A URL file listing `urls`.
    private func urlFile(_ urls: [String]) throws -> String {
        try folder.write(Data(urls.map { $0 + "\n" }.joined().utf8), to: "urls-\(UUID().uuidString).txt")
    }

    /// Starts `webcache arguments --store STORE` without waiting for it.
    private func start(_ arguments: String...) throws -> (process: ChildProcess, stdout: OutputFile, stderr: OutputFile) {
        let name = UUID().uuidString
        let stdout = OutputFile(path: folder.path("\(name).out"))
        let stderr = OutputFile(path: folder.path("\(name).err"))
        let process = try webcache.start(arguments + ["--store", store], output: stdout, error: stderr)
        return (process, stdout, stderr)
    }

    /// The lines of standard error that are not about `/held.html`: on a machine slow enough for the
    /// run to reach the transport's idle timeout (30 s) before it is stopped, the held request times
    /// out and is tried again, which webcache says.
    private static func besidesTheHeldPage(_ lines: [String]) -> [String] {
        lines.filter { !$0.contains("/held.html") }
    }

    /// Polls until `condition` holds, for a minute at most (a loaded machine can take that long to
    /// start webcache and its first fetches); whether it did.
    private func waitUntil(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Which of `urls` the store holds, read while another process may write it; none while there is
    /// no store yet.
    private func stored(_ urls: [String]) async -> Set<String> {
        var configuration = CacheStore.Configuration()
        configuration.readOnly = true
        let found = try? await withCacheStore(at: store, configuration: configuration) { store in
            try urls.filter { try store.entry(url: $0) != nil }
        }
        return Set(found ?? [])
    }

    /// How many entries the store holds.
    private func entryCount() async throws -> Int {
        var configuration = CacheStore.Configuration()
        configuration.readOnly = true
        return try await withCacheStore(at: store, configuration: configuration) { Int(try $0.totals().entryCount) }
    }

    /// `inspect --pages --json`: whether each recorded page is complete, by URL.
    private func pageStates() async throws -> [String: Bool] {
        let result = try await run("inspect", "--pages", "--json")
        try #require(result.exitCode == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]
        let pages = try #require(object?["pages"] as? [[String: Any]], "\(result.stdout)")
        return Dictionary(uniqueKeysWithValues: pages.map { ($0["url"] as? String ?? "", $0["complete"] as? Bool == true) })
    }

    /// The JSON objects of the complete lines written so far.
    private func jsonLines(_ output: OutputFile) -> [[String: Any]] {
        output.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The URLs of the `fetched` events among `lines`.
    private func fetchedURLs(_ lines: [[String: Any]]) -> [String] {
        lines.filter { $0["event"] as? String == "fetched" }.compactMap { $0["url"] as? String }
    }

    /// The numbered pages all of whose photos are among `fetched` (their stylesheet and the page
    /// itself go first).
    private func pagesWithEveryPhoto(_ fetched: [String]) -> Set<String> {
        let pages = fetched.filter { $0.hasSuffix(".svg") }.map { String($0[..<$0.lastIndex(of: "/")!]) + ".html" }
        let counts = pages.reduce(into: [:]) { $0[$1, default: 0] += 1 }
        return Set(counts.filter { $0.value == TestOrigin.numberedPagePhotos }.keys)
    }

    // MARK: - Tests

    @Test func sigintStopsAPreloadThatSaysWhatItStoredAndKeepsWhatWasThere() async throws {
        // An earlier whole run preloaded page.html with everything it needs.
        let whole = try await run("preload", try urlFile([url("/page.html")]))
        try #require(whole.exitCode == 0, "\(whole.stderr)")
        try #require(try await pageStates() == [url("/page.html"): true])
        // The long run lists it last, behind a held page and forty numbered pages, two transfers at a time.
        gate.close()
        let pages = numberedPages(40)
        let (process, stdout, stderr) = try start(
            "preload", try urlFile([url("/held.html")] + pages + [url("/page.html")]), "-j", "2")
        var storedBefore: Set<String> = []
        let started = try await waitUntil {
            storedBefore = await stored(pages)
            return storedBefore.count >= 3
        }
        try #require(started, "no page was stored: \(stderr.lines)")

        process.send(SIGINT)
        let termination = await process.finish().termination

        #expect(termination == .exited(130), "\(stderr.lines)")
        #expect(Self.besidesTheHeldPage(stderr.lines)
                    == ["webcache: stopping on signal 2 (a second one stops at once)"])
        let summary = try #require(stdout.lines.first)
        let match = try #require(
            summary.firstMatch(
                of: /^Interrupted: preloaded (\d+) of 42 page\(s\)(?:, (\d+) of them without all they need)?: (\d+) resource\(s\) in the store/),
            "\(stdout.lines)")
        let (preloaded, missing, completed) = (Int(match.1)!, match.2.map { Int($0)! } ?? 0, Int(match.3)!)
        let storedAfter = await stored(pages + [url("/page.html")])
        let entries = try await entryCount()
        #expect(storedAfter.isSuperset(of: storedBefore), "what was stored before the signal is still there")
        #expect(preloaded > 0 && preloaded <= storedAfter.count, "\(summary)")
        #expect(completed >= preloaded && completed <= entries, "\(summary)")
        #expect(stdout.lines.contains { $0.hasSuffix(" not fetched.") }, "\(stdout.lines)")
        let verify = try await run("verify")
        #expect(verify.exitCode == 0, "\(verify.stdout)")
        // page.html, not reached, keeps its edges; every page recorded is complete.
        let states = try await pageStates()
        #expect(states[url("/page.html")] == true, "\(states)")
        #expect(states.values.allSatisfy { $0 }, "\(states)")
        // The pages that settled in this run are recorded, page.html perhaps among them.
        #expect((preloaded - missing...preloaded - missing + 1).contains(states.count), "\(summary) \(states)")
    }

    @Test func sigtermStopsAPreloadWithCode143() async throws {
        gate.close()
        let pages = numberedPages(40)
        let (process, stdout, stderr) = try start("preload", try urlFile([url("/held.html")] + pages), "-j", "2")
        let started = try await waitUntil { await stored(pages).count >= 2 }
        try #require(started, "no page was stored: \(stderr.lines)")

        process.send(SIGTERM)
        let termination = await process.finish().termination

        #expect(termination == .exited(143), "\(stderr.lines)")
        #expect(Self.besidesTheHeldPage(stderr.lines)
                    == ["webcache: stopping on signal 15 (a second one stops at once)"])
        #expect(stdout.lines.first?.hasPrefix("Interrupted: preloaded ") == true, "\(stdout.lines)")
        let verify = try await run("verify")
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    @Test func theJSONSummarySaysInterruptedWithCountsThatMatchTheEvents() async throws {
        gate.close()
        let pages = numberedPages(40)
        let (process, stdout, stderr) = try start(
            "preload", try urlFile([url("/held.html")] + pages), "-j", "2", "--json")
        // Pages go before their photos: once a page's photos are stored, it has settled.
        var settled: Set<String> = []
        let started = try await waitUntil {
            settled = pagesWithEveryPhoto(fetchedURLs(jsonLines(stdout)))
            return !settled.isEmpty
        }
        try #require(started, "no page settled: \(stdout.lines) \(stderr.lines)")
        let fetchedBefore = fetchedURLs(jsonLines(stdout))

        process.send(SIGINT)
        let termination = await process.finish().termination

        #expect(termination == .exited(130), "\(stderr.lines)")
        let lines = jsonLines(stdout)
        #expect(lines.count == stdout.lines.count, "every line is a JSON object: \(stdout.lines)")
        let summary = try #require(lines.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["interrupted"] as? Bool == true)
        let fetched = fetchedURLs(Array(lines.dropLast()))
        #expect(Set(fetched).isSuperset(of: fetchedBefore))
        #expect(summary["completed"] as? Int == fetched.count)
        #expect(summary["network"] as? Int == fetched.count)
        #expect(summary["failed"] as? Int == 0)
        let fetchedPages = fetched.filter { $0.hasSuffix(".html") }
        let (total, failed, unfinished) = (summary["pages"] as? Int, summary["pagesFailed"] as? Int,
                                           summary["pagesUnfinished"] as? Int)
        #expect(total == 41 && failed == 0 && unfinished == 41 - fetchedPages.count, "\(summary)")
        #expect(!fetched.contains(url("/held.html")), "\(fetched)")
        #expect((summary["unfinished"] as? Int ?? 0) > 0, "\(summary)")
        let missing = try #require(summary["pagesMissingRequisites"] as? Int, "\(summary)")
        let storedFetched = await stored(fetched)
        #expect(storedFetched == Set(fetched), "every resource reported fetched is in the store")
        let verify = try await run("verify")
        #expect(verify.exitCode == 0, "\(verify.stdout)")
        // The pages that had settled before the signal are recorded complete.
        let states = try await pageStates()
        #expect(settled.allSatisfy { states[$0] == true }, "\(settled) \(states)")
        #expect(states.values.allSatisfy { $0 }, "\(states)")
        // Every page fetched is recorded, but for those the run left without all they need.
        #expect(states.count == fetchedPages.count - missing, "\(summary) \(states)")
    }

    /// The list is read a window of pages at a time: a run interrupted before its end says that the
    /// rest of the list was not read, rather than counting only the pages it read.
    @Test func anInterruptedRunSaysThatTheRestOfTheListWasNotRead() async throws {
        // Every listed page is held, so the two transfers wait and the run reads no further than its
        // window of pages, however slowly the machine goes.
        gate.close()
        let listed = (1...200).map { url("/held.html?n=\($0)") }
        let (process, stdout, stderr) = try start("preload", try urlFile(listed), "-j", "2", "--json")
        let waiting = try await waitUntil { server.requests.contains { $0.path == "/held.html" } }
        try #require(waiting, "no held page was asked for: \(stderr.lines)")

        process.send(SIGINT)
        let termination = await process.finish().termination

        #expect(termination == .exited(130), "\(stderr.lines)")
        let summary = try #require(jsonLines(stdout).last)
        #expect(summary["interrupted"] as? Bool == true, "\(summary)")
        #expect(summary["listUnread"] as? Bool == true, "\(summary)")
        let read = try #require(summary["pages"] as? Int)
        #expect(read > 0 && read < listed.count, "\(summary)")
        #expect(summary["pagesUnfinished"] as? Int == read, "\(summary)")

        // And a run that read its whole list says nothing of the kind
        gate.open()
        let whole = try await run("preload", try urlFile(numberedPages(2)), "--json")
        let wholeSummary = try #require(whole.stdout.split(separator: "\n").last.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        })
        #expect(wholeSummary["listUnread"] as? Bool == false, "\(whole.stdout)")
    }

    @Test func sigintStopsARefreshAndEveryPageStaysComplete() async throws {
        let pages = numberedPages(12) + [url("/held.html")]
        let whole = try await run("preload", try urlFile(pages))
        try #require(whole.exitCode == 0, "\(whole.stderr)")
        try #require(try await pageStates().count == 13)

        // The refresh revalidates every stored page; the held one keeps one of its two transfers.
        gate.close()
        let (process, stdout, stderr) = try start("refresh", "-j", "2", "--json")
        let started = try await waitUntil { fetchedURLs(jsonLines(stdout)).count >= 2 }
        try #require(started, "nothing was revalidated: \(stdout.lines) \(stderr.lines)")
        process.send(SIGINT)
        let termination = await process.finish().termination

        #expect(termination == .exited(130), "\(stderr.lines)")
        let summary = try #require(jsonLines(stdout).last)
        #expect(summary["event"] as? String == "summary" && summary["interrupted"] as? Bool == true, "\(summary)")
        #expect((summary["pagesUnfinished"] as? Int ?? 0) > 0, "\(summary)")
        let states = try await pageStates()
        #expect(states.count == 13 && states.values.allSatisfy { $0 }, "no page forgot what it needs: \(states)")
    }

    /// The process id a token command wrote to `path` as a whole line; `nil` before it has.
    private static func processID(in path: String) -> Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        return Int32(text.trimmed)
    }

    @Test func theFirstSignalAlsoStopsATokenCommandThatHoldsTheRunUp() async throws {
        let pidFile = folder.path("token.pid")
        let (process, stdout, stderr) = try start(
            "preload", try urlFile(numberedPages(3)), "--instance", instance,
            "--token-command", "echo $$ > '\(pidFile)'; exec sleep 300")
        // The shell creates the file before `echo` writes the id into it: wait for the whole line.
        let held = try await waitUntil { Self.processID(in: pidFile) != nil }
        try #require(held, "the token command did not start: \(stderr.lines)")
        let command = try #require(Self.processID(in: pidFile))
        defer { kill(-command, SIGKILL) }

        process.send(SIGINT)
        let termination = await process.finish().termination

        #expect(termination == .exited(130), "\(stderr.lines)")
        #expect(stdout.lines.first?.hasPrefix("Interrupted: preloaded 0 of 3 page(s)") == true, "\(stdout.lines)")
        // No request left: each waited for the token.
        #expect(stdout.lines.first?.contains(" in 0 request(s)") == true, "\(stdout.lines)")
        // webcache waited for the command it stopped, so no process has that id any more.
        #expect(try await waitUntil { kill(command, 0) == -1 && errno == ESRCH }, "the token command was stopped")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsTheTokenCommandAGetWaitsFor(signal: Int32) async throws {
        let pidFile = folder.path("token.pid")
        let (process, _, stderr) = try start(
            "get", url("/pages/1.html"), "--instance", instance,
            "--token-command", "echo $$ > '\(pidFile)'; exec sleep 300")
        let held = try await waitUntil { Self.processID(in: pidFile) != nil }
        try #require(held, "the token command did not start: \(stderr.lines)")
        let tokenCommand = try #require(Self.processID(in: pidFile))
        defer { kill(-tokenCommand, SIGKILL) }

        process.send(signal)
        let termination = await process.finish().termination

        #expect(termination == .exited(128 + signal), "\(stderr.lines)")
        #expect(try await waitUntil { kill(tokenCommand, 0) == -1 && errno == ESRCH }, "the token command was stopped")
    }

    @Test func aSecondSignalEndsAPreloadThatIsStillWindingDown() async throws {
        // The token command ignores SIGTERM, so the first signal leaves the preload winding down until
        // the command is killed ten seconds later; the second signal ends it first.
        let pidFile = folder.path("token.pid")
        let (process, stdout, stderr) = try start(
            "preload", try urlFile(numberedPages(3)), "--instance", instance,
            "--token-command", "trap '' TERM; echo $$ > '\(pidFile)'; exec sleep 300")
        defer {
            if let group = Self.processID(in: pidFile) { kill(-group, SIGKILL) }
        }
        let held = try await waitUntil { Self.processID(in: pidFile) != nil }
        try #require(held, "the token command did not start: \(stderr.lines)")

        process.send(SIGINT)
        let stopping = try await waitUntil { !stderr.lines.isEmpty }
        #expect(stopping && stderr.lines == ["webcache: stopping on signal 2 (a second one stops at once)"])
        process.send(SIGINT)
        let termination = await process.finish().termination

        #expect(termination == .signalled(SIGINT), "\(stderr.lines)")
        #expect(stdout.lines.isEmpty, "no summary: \(stdout.lines)")
    }
}

extension String {
    /// The text without white space at either end.
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
