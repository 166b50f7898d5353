import CacheStore
import FoundationEssentials
import HTTPCore

/// `webcache inspect [URL] [--pages] [--json]`: what the store holds. Without arguments, totals,
/// freshness counts, hosts and partitions, counted from the rows (a warning on standard error says
/// when the running totals the store keeps disagree); with a URL, the metadata of every stored
/// variant of it; with `--pages`, for every preloaded page whether everything it needs is stored.
enum InspectCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        var url: String?
        if let text = context.arguments.positionals.first {
            url = try context.arguments.requestURL(text, for: "<url>").absoluteString
        }
        let json = context.arguments.flag("json")
        let now = Date()
        return try await context.withExistingStore(readOnly: true) { store in
            if context.arguments.flag("pages") {
                // Written as the pages are read, a thousand at a time and 64 KiB of output at a time: a
                // store of 200,000 pages built a report of 100 MB (335 MB as JSON) before its first line.
                if json {
                    let output = try JSONOutput.StreamedArray(key: "pages", to: context.stdout)
                    try forEachPage(of: store, url: url) { try output.append(try page($0, of: store)) }
                    try output.finish(then: [("store", store.path)])
                } else {
                    var complete = 0
                    var text = ""
                    let count = try forEachPage(of: store, url: url) { listedPage in
                        let report = try page(listedPage, of: store)
                        if report.complete { complete += 1 }
                        text += report.text
                        if text.utf8.count >= 1 << 16 {
                            context.stdout.write(text)
                            text = ""
                        }
                    }
                    text += Pages.closingLine(store: store.path, pages: count, complete: complete)
                    context.stdout.write(text)
                }
            } else if let url {
                let report = try entries(store, url: url, now: now)
                if json {
                    try JSONOutput.write(report, to: context.stdout)
                } else {
                    context.stdout.write(report.text(now: now))
                }
            } else {
                let statistics = try await store.statistics(at: now)
                let differences = statistics.runningTotals.differences(fromCounted: statistics.totals)
                if !differences.isEmpty {
                    context.stderr.write(
                        "webcache: warning: the running totals of the store disagree with its rows ("
                            + differences.joined(separator: ", ") + "); the figures here are counted from the rows, "
                            + "but eviction (prune --max-size) goes by the totals. 'webcache verify --repair --store "
                            + "\(store.path)' recomputes them.\n")
                }
                let report = Totals(store: store.path, statistics: statistics)
                if json {
                    try JSONOutput.write(report, to: context.stdout)
                } else {
                    context.stdout.write(report.text)
                }
            }
            return ExitCode.success
        }
    }

    // MARK: - Totals

    /// The store's totals, as printed and as JSON.
    struct Totals: Encodable {
        struct Group: Encodable {
            var name: String
            var entries: Int64
            var bytes: Int64
        }

        var store: String
        var entries: Int64
        var entryBytes: Int64
        var bodies: Int64
        var bodyBytes: Int64
        /// Bytes that identical bodies shared between entries save.
        var sharedSavingsBytes: Int64
        var fresh: Int64
        var staleServable: Int64
        var expired: Int64
        var pinned: Int64
        /// Partial entries (stored 206 responses), among ``entries``.
        var partial: Int64
        var stagedBytes: Int64
        var hosts: [Group]
        var partitions: [Group]

        init(store: String, statistics: StoreStatistics) {
            let totals = statistics.totals
            self.store = store
            entries = totals.entryCount
            entryBytes = totals.entryBytes
            bodies = totals.bodyCount
            bodyBytes = totals.bodyBytes
            sharedSavingsBytes = max(0, totals.entryBytes - totals.bodyBytes)
            fresh = statistics.freshCount
            staleServable = statistics.staleServableCount
            expired = statistics.expiredCount
            pinned = statistics.pinnedCount
            partial = statistics.partialCount
            stagedBytes = statistics.stagedBytes
            hosts = statistics.hosts.map { Group(name: $0.name, entries: $0.entryCount, bytes: $0.entryBytes) }
            partitions = statistics.partitions.map {
                Group(name: $0.name, entries: $0.entryCount, bytes: $0.entryBytes)
            }
        }

        var text: String {
            let size = ValueParsers.formatBytes
            var lines = [
                "Store:       \(store)",
                "Entries:     \(entries) (\(size(entryBytes)))",
                "Bodies:      \(bodies) distinct (\(size(bodyBytes)); sharing saves \(size(sharedSavingsBytes)))",
                "Freshness:   \(fresh) fresh, \(staleServable) stale but servable, \(expired) to revalidate before use",
                "Pinned:      \(pinned)",
            ]
            if partial > 0 {
                lines.append("Partial:     \(partial) (parts of responses, served only for the ranges they hold)")
            }
            if stagedBytes > 0 {
                lines.append("Staged:      \(size(stagedBytes)) of responses still being written")
            }
            var text = lines.joined(separator: "\n") + "\n"
            for (title, groups) in [("Partitions", partitions), ("Hosts", hosts)] where !groups.isEmpty {
                var table = TextTable(headers: [title == "Hosts" ? "HOST" : "PARTITION", "ENTRIES", "BYTES"],
                                      numericColumns: [1, 2])
                for group in groups {
                    table.append([group.name, "\(group.entries)", size(group.bytes)])
                }
                text += "\n\(title):\n" + table.render()
            }
            return text
        }
    }

    // MARK: - One URL

    /// Every stored entry of one URL.
    struct Entries: Encodable {
        struct Field: Encodable {
            var name: String
            var value: String
        }

        /// Bytes `first` to `last` (both included) of the complete response.
        struct Span: Encodable {
            var first: Int64
            var last: Int64

            init(_ span: ClosedRange<Int64>) {
                first = span.lowerBound
                last = span.upperBound
            }

            var text: String { "\(first)-\(last)" }
        }

        struct Entry: Encodable {
            var partition: String
            var method: String
            var url: String
            var status: Int
            var storedAt: Date
            var ageSeconds: Int
            var freshUntil: Date
            var staleUntil: Date?
            /// `fresh`, `stale` (still servable) or `expired`.
            var state: String
            var etag: String?
            var lastModified: String?
            var varyKey: String
            var size: Int64
            /// The content coding the body was decoded from when received, if it was.
            var decodedFrom: String?
            var hits: Int64
            var lastAccess: Date
            var pinned: Bool
            /// For a partial entry, the length of the complete response; its size is the bytes it holds
            /// (each once, where parts overlap).
            var completeLength: Int64?
            /// For a partial entry, the spans of the complete response it holds, overlapping and
            /// adjoining parts joined.
            var heldRanges: [Span]?
            /// For a partial entry, the span each stored part holds.
            var parts: [Span]?
            /// The response headers, with credentials and cookies redacted; for a partial entry, those
            /// of the part stored last.
            var headers: [Field]
        }

        var store: String
        var url: String
        var entries: [Entry]

        func text(now: Date) -> String {
            entries.map { entry in
                func instant(_ date: Date) -> String {
                    let distance = date.timeIntervalSince(now)
                    let relative = distance >= 0
                        ? "in \(ValueParsers.formatDuration(distance))"
                        : "\(ValueParsers.formatDuration(-distance)) ago"
                    return "\(Entries.format(date)) (\(relative))"
                }
                var rows: [(String, String)] = [
                    ("Status", "\(entry.status)"),
                    ("State", entry.state == "stale" ? "stale, still servable" : entry.state),
                    ("Stored at", instant(entry.storedAt)),
                    ("Age", ValueParsers.formatDuration(TimeInterval(entry.ageSeconds))),
                    ("Fresh until", instant(entry.freshUntil)),
                    ("Stale until", entry.staleUntil.map(instant) ?? "no stale window"),
                    ("ETag", entry.etag ?? "none"),
                    ("Last-Modified", entry.lastModified ?? "none"),
                    ("Vary key", entry.varyKey.isEmpty ? "none" : entry.varyKey),
                    ("Size", "\(ValueParsers.formatBytes(entry.size)) (\(entry.size) bytes)"),
                    ("Decoded from", entry.decodedFrom ?? "none, stored as received"),
                    ("Hits", "\(entry.hits)"),
                    ("Last access", instant(entry.lastAccess)),
                    ("Pinned", entry.pinned ? "yes" : "no"),
                ]
                if let completeLength = entry.completeLength {
                    let held = (entry.heldRanges ?? []).map(\.text).joined(separator: ", ")
                    let parts = entry.parts ?? []
                    let stored = parts.reduce(Int64(0)) { $0 + $1.last - $1.first + 1 }
                    rows.insert(("Partial", "holds \(entry.size) of \(completeLength) bytes: \(held)"), at: 1)
                    rows.insert(
                        ("Parts", parts.map(\.text).joined(separator: ", ")
                            + " (\(ValueParsers.formatCount(parts.count, "part", "parts")), \(stored) bytes stored)"),
                        at: 2)
                }
                rows = rows.map { ($0.0 + ":", $0.1) }
                let width = rows.map(\.0.count).max() ?? 0
                var text = "\(entry.method) \(entry.url) (partition \(entry.partition))\n"
                for (label, value) in rows {
                    text += "  " + label + String(repeating: " ", count: width - label.count + 1) + value + "\n"
                }
                text += entry.completeLength == nil ? "  Headers:\n" : "  Headers (of the part stored last):\n"
                for field in entry.headers {
                    text += "    \(field.name): \(field.value)\n"
                }
                return text
            }.joined(separator: "\n")
        }

        private static func format(_ date: Date) -> String {
            date.formatted(.iso8601)
        }
    }

    private static func entries(_ store: CacheStore, url: String, now: Date) throws -> Entries {
        var found: [CacheEntry] = []
        for form in CommandContext.storedForms(of: url) where found.isEmpty {
            found = try store.entries(url: form)
        }
        guard !found.isEmpty else {
            throw CLIError("'\(url)' is not in the store '\(store.path)'.")
        }
        let entries = try found.map { entry in
            // A partial entry holds the bytes its parts' spans cover, each once however the parts overlap.
            let partial = try entry.isPartial
                ? store.partialVariants(partition: entry.partition, method: entry.method, url: entry.url)
                    .first { $0.entry.id == entry.id }
                : nil
            return Entries.Entry(
                partition: entry.partition, method: entry.method.rawValue, url: entry.url, status: entry.status,
                storedAt: entry.storedAt, ageSeconds: Int(currentAge(of: entry, at: now)),
                freshUntil: entry.freshUntil, staleUntil: entry.staleUntil, state: state(of: entry, at: now),
                etag: entry.etag, lastModified: entry.lastModified, varyKey: entry.varyKey,
                size: partial?.heldByteCount ?? entry.bodySize, decodedFrom: entry.decodedFrom, hits: entry.hitCount,
                lastAccess: entry.lastAccess, pinned: entry.pinned, completeLength: entry.completeLength,
                heldRanges: partial?.heldSpans.map(Entries.Span.init),
                parts: partial?.parts.map { Entries.Span($0.span) },
                headers: entry.headers.redacted().map { Entries.Field(name: $0.name, value: $0.value) })
        }
        return Entries(store: store.path, url: found[0].url, entries: entries)
    }

    /// `fresh`, `stale` (inside its stale window) or `expired`, as `inspect` and `prune --expired` count them.
    static func state(of entry: CacheEntry, at now: Date) -> String {
        if entry.isFresh(at: now) { return "fresh" }
        if let staleUntil = entry.staleUntil, staleUntil > now { return "stale" }
        return "expired"
    }

    /// The entry's current age (RFC 9111 §4.2.3): the corrected initial age plus the time it has been stored.
    static func currentAge(of entry: CacheEntry, at now: Date) -> TimeInterval {
        let apparentAge = max(0, entry.date.map { entry.responseTime.timeIntervalSince($0) } ?? 0)
        let ageValue = entry.headers["Age"].flatMap { TimeInterval($0.trimmingHTTPWhitespace()) } ?? 0
        let responseDelay = entry.responseTime.timeIntervalSince(entry.requestTime)
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return max(0, correctedInitialAge + now.timeIntervalSince(entry.responseTime))
    }

    // MARK: - Pages

    /// How complete every preloaded page is: written as `{"pages": [Page], "store": path}`, a page at a
    /// time.
    enum Pages {
        struct Failure: Encodable {
            var url: String
            var kind: String
            var reason: String
        }

        struct Page: Encodable {
            var partition: String
            var url: String
            var complete: Bool
            var pageStored: Bool
            var resources: Int
            var stored: Int
            var failures: [Failure]
            var missing: [String]
            /// What the preload left out for its device: the page lacks it on another device.
            var skippedForThisDevice: [Failure]

            /// Its line, and a line for each resource that failed, is missing or was left out.
            var text: String {
                let state = complete ? "complete" : "incomplete"
                let pageNote = pageStored ? "" : ", the page itself is not stored"
                var text = "\(state): \(url) (partition \(partition)): "
                    + "\(stored) of \(resources) resources stored\(pageNote)\n"
                for failure in failures {
                    text += "  failed: \(failure.url) (\(failure.kind)): \(failure.reason)\n"
                }
                for missing in missing where !failures.contains(where: { $0.url == missing }) {
                    text += "  missing: \(missing)\n"
                }
                for skip in skippedForThisDevice {
                    text += "  skipped for this device: \(skip.url) (\(skip.kind)): \(skip.reason)\n"
                }
                return text
            }
        }

        /// The line after the pages: how many, and how many complete; or that there is none.
        static func closingLine(store: String, pages: Int, complete: Int) -> String {
            guard pages > 0 else {
                return "No page in the store '\(store)' has recorded resources; preload pages to record them.\n"
            }
            return "\(pages) page(s), \(complete) complete.\n"
        }
    }

    /// Calls `body` with each stored page `inspect --pages` reports, in order: the page `url` names
    /// (in each partition where it is recorded), or every page, read a thousand at a time; returns
    /// how many there were.
    @discardableResult
    private static func forEachPage(
        of store: CacheStore, url: String?, _ body: (StoredPage) throws -> Void
    ) throws -> Int {
        guard let url else {
            var count = 0
            var position: PageListPosition?
            repeat {
                let piece = try store.pages(after: position, limit: 1_000)
                for page in piece.pages { try body(page) }
                count += piece.pages.count
                position = piece.next
            } while position != nil
            return count
        }
        var pages: [StoredPage] = []
        for form in CommandContext.storedForms(of: url) where pages.isEmpty {
            pages = try store.pages(url: form)
        }
        guard !pages.isEmpty else {
            throw CLIError("'\(url)' is not a page with recorded resources in the store '\(store.path)'.")
        }
        for page in pages { try body(page) }
        return pages.count
    }

    /// How complete `page` is, read from the store.
    private static func page(_ page: StoredPage, of store: CacheStore) throws -> Pages.Page {
        let status = try store.pageStatus(forPage: page.url, partition: page.partition)
        return Pages.Page(
            partition: page.partition, url: page.url, complete: status.isComplete, pageStored: status.pageStored,
            resources: status.resourceCount, stored: status.storedCount,
            failures: status.failures.map {
                Pages.Failure(url: $0.resourceURL, kind: $0.kind, reason: $0.failure ?? "")
            },
            missing: status.missing,
            skippedForThisDevice: try store.skipped(forPage: page.url, partition: page.partition).map {
                Pages.Failure(url: $0.resourceURL, kind: $0.kind, reason: $0.reason)
            })
    }
}
