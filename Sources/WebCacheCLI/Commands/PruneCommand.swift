import CacheStore
import FoundationEssentials
import HTTPCore

/// `webcache prune`: removes the entries that match every criterion given, or, with `--max-size`,
/// evicts least recently used entries until the store fits; `--dry-run` only lists them, with the
/// store opened for reading only. `--page` removes a whole page (see ``PruneCriteria/page``). With
/// `--compact`, the store file then gives the space back to the file system.
enum PruneCommand {
    /// What to remove, from the command line.
    enum Plan: Equatable {
        case criteria(PruneCriteria)
        case fit(byteLimit: Int64)
        /// Nothing: `--compact` alone.
        case nothing
    }

    /// The report, as printed and as JSON.
    struct Report: Encodable {
        /// A page of `--page`, in one partition.
        struct Page: Encodable {
            var partition: String
            var url: String
        }

        var store: String
        var dryRun: Bool
        var entries: Int
        var entryBytes: Int64
        var freedBytes: Int64
        var urls: [String]
        /// How many page records went (would go) because every entry of the page itself did.
        var pageRecords: Int
        /// With `--max-size`: the limit as understood, in bytes.
        var byteLimit: Int64?
        /// With `--max-size`: the bytes of bodies left (that would be left), above the limit when
        /// what is left is pinned.
        var bodyBytesLeft: Int64?
        /// Whether entries were to be removed at all (`false` for `--compact` alone).
        var removesEntries: Bool
        /// With `--page`: the pages whose records went (would go), and those whose records stay
        /// because an entry of the page itself stays.
        var removedPages: [Page]?
        var keptPages: [Page]?
        /// The bytes of the store file and its log before and after `--compact`.
        var compactedFrom: Int64?
        var compactedTo: Int64?
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let plan = try makePlan(context.arguments, now: Date())
        let dryRun = context.arguments.flag("dry-run")
        let compacts = context.arguments.flag("compact")
        // A dry run only reads, so it works on a store that cannot be written, and changes nothing.
        return try await context.withExistingStore(readOnly: dryRun) { store in
            let result: PruneResult?
            var named: [StoredPage]?
            switch plan {
            case .criteria(var criteria):
                if let page = criteria.page {
                    let pages = try recordedPages(page, partition: criteria.partition, in: store)
                    criteria.page = pages[0].url
                    // A page recorded in one partition is pruned there: its entries are then found by
                    // key, not by a scan of the store.
                    if pages.count == 1 { criteria.partition = pages[0].partition }
                    named = pages
                }
                result = try await store.prune(criteria, dryRun: dryRun)
            case .fit(let byteLimit):
                result = dryRun ? try store.evictionPlan(toFit: byteLimit) : try await store.evict(toFit: byteLimit)
            case .nothing:
                result = nil
            }
            var report = Report(store: store.path, dryRun: dryRun, entries: result?.entryCount ?? 0,
                                entryBytes: result?.entryBytes ?? 0, freedBytes: result?.freedBytes ?? 0,
                                urls: result?.urls ?? [], pageRecords: result?.pageRecordCount ?? 0,
                                removesEntries: result != nil)
            if case .fit(let byteLimit) = plan {
                report.byteLimit = byteLimit
                // What the eviction left, not what the store holds now: other processes may have
                // stored more since, which is not what the eviction could not remove.
                report.bodyBytesLeft = result?.bodyBytesLeft
            }
            if let named {
                let removed = result?.pages ?? []
                report.removedPages = removed.map { Report.Page(partition: $0.partition, url: $0.url) }
                report.keptPages = named.filter { !removed.contains($0) }.map {
                    Report.Page(partition: $0.partition, url: $0.url)
                }
            }
            let json = context.arguments.flag("json")
            // What was removed is said before the store is rewritten, which takes long and may fail
            // (a full disk) or be interrupted: the removal is committed by then.
            if !json { context.stdout.write(text(report)) }
            if compacts {
                let compacted = try await store.compact()
                report.compactedFrom = compacted.bytesBefore
                report.compactedTo = compacted.bytesAfter
                if !json { context.stdout.write(compactedLine(report)) }
            }
            if json { try JSONOutput.write(report, to: context.stdout) }
            // Pinned entries are not evicted, nor entries whose body a pinned one shares: a limit they alone
            // pass is not reached, and the caller is told.
            if let limit = report.byteLimit, let left = report.bodyBytesLeft, left > limit {
                let size = ValueParsers.formatBytes
                context.stderr.write("Error: the bodies \(dryRun ? "would " : "")still take \(size(left)), more than "
                                         + "the limit of \(size(limit)): what is left is pinned (unpin some, or give "
                                         + "a larger limit).\n")
                return ExitCode.failure
            }
            return ExitCode.success
        }
    }

    /// The partitions where `pageURL`, or its cache key, has recorded edges (only `partition` when
    /// given), under the first of the two forms found.
    ///
    /// - Throws: ``CLIError`` naming the URL when it is no page of the store.
    private static func recordedPages(
        _ pageURL: String, partition: String?, in store: CacheStore
    ) throws -> [StoredPage] {
        var pages: [StoredPage] = []
        for form in CommandContext.storedForms(of: pageURL) where pages.isEmpty {
            pages = try store.pages(partition: partition, url: form)
        }
        guard !pages.isEmpty else {
            let scope = partition.map { " (partition \($0))" } ?? ""
            throw CLIError("'\(pageURL)' is not a page with recorded resources in the store '\(store.path)'\(scope).")
        }
        return pages
    }

    /// Turns the options into a plan.
    ///
    /// - Throws: ``UsageError`` for a bad duration, size, host (``HostArgument``), glob pattern
    ///   (``GlobPattern``) or page URL (``ParsedArguments/requestURL(_:for:)``: relative to
    ///   `--instance`, which a relative one needs), for no criterion at all (pruning everything
    ///   needs `--url-pattern '*'`) unless `--compact` is given, for `--max-size` combined with
    ///   criteria, and for `--compact` with `--dry-run`.
    static func makePlan(_ arguments: ParsedArguments, now: Date) throws(UsageError) -> Plan {
        let compacts = arguments.flag("compact")
        if compacts && arguments.flag("dry-run") {
            throw UsageError("--compact rewrites the store, which --dry-run promises not to do; give one of them",
                             command: arguments.spec)
        }
        var criteria = PruneCriteria()
        if arguments.flag("expired") {
            criteria.expiredAt = now
        }
        if let age = try arguments.value("older-than", "duration", ValueParsers.duration) {
            // A bare number would be seconds: "30" meant as days would remove nearly everything.
            if let raw = arguments.value("older-than"),
                raw.trimmingWhitespace().last?.isNumber == true
            {
                throw UsageError("The value '\(raw)' for '--older-than <duration>' has no unit; give one of s, m, "
                                     + "h, d or w, as in 30d", command: arguments.spec)
            }
            criteria.storedBefore = now.addingTimeInterval(-age)
        }
        if let host = arguments.value("host") {
            criteria.host = try HostArgument(host, for: "--host <host>", command: arguments.spec).storedHost
        }
        criteria.urlPattern = try nonEmpty(arguments, "url-pattern", "glob")
        if let pattern = criteria.urlPattern, let problem = GlobPattern.problem(in: pattern) {
            throw UsageError("The value '\(pattern)' is invalid for '--url-pattern <glob>': \(problem)",
                             command: arguments.spec)
        }
        criteria.partition = try nonEmpty(arguments, "partition", "name")
        if let page = arguments.value("page") {
            criteria.page = try arguments.requestURL(page, for: "--page <url>").absoluteString
        }
        criteria.includePinned = arguments.flag("include-pinned")
        let maxSize = try arguments.value("max-size", "size", ValueParsers.byteSize)
        let hasCriteria = criteria != PruneCriteria(includePinned: criteria.includePinned)
        if let maxSize {
            guard !hasCriteria, !criteria.includePinned else {
                throw UsageError(
                    "--max-size evicts by last access alone and never removes pinned entries; "
                        + "run it without --expired, --older-than, --host, --url-pattern, --partition, --page "
                        + "and --include-pinned",
                    command: arguments.spec)
            }
            return .fit(byteLimit: maxSize)
        }
        guard hasCriteria else {
            if compacts && !criteria.includePinned { return .nothing }
            throw UsageError(
                "Give at least one of --expired, --older-than, --host, --url-pattern, --partition, --page or "
                    + "--max-size; to remove every entry, give --url-pattern '*'",
                command: arguments.spec)
        }
        return .criteria(criteria)
    }

    private static func nonEmpty(_ arguments: ParsedArguments, _ key: String, _ what: String) throws(UsageError)
        -> String?
    {
        try arguments.value(key, what) { $0.isEmpty ? nil : $0 }
    }

    /// `Compacted the store: 12.0 MiB → 3.1 MiB (8.9 MiB given back to the file system).`
    private static func compactedLine(_ report: Report) -> String {
        guard let before = report.compactedFrom, let after = report.compactedTo else { return "" }
        let size = ValueParsers.formatBytes
        return "Compacted the store: \(size(before)) → \(size(after)) "
            + "(\(size(max(0, before - after))) given back to the file system).\n"
    }

    /// What was removed, or would be with `--dry-run`.
    private static func text(_ report: Report) -> String {
        let noun = report.entries == 1 ? "entry" : "entries"
        let kept = "the page itself stays (pinned, needed by another page, or not matched by the other options)"
        var text = report.byteLimit.map { "Limit: \(ValueParsers.describeByteSize($0)) of bodies.\n" } ?? ""
        let pageRecords = report.pageRecords == 1 ? "1 page" : "\(report.pageRecords) pages"
        guard report.dryRun else {
            if report.removesEntries {
                text += "Removed \(report.entries) \(noun) (\(ValueParsers.formatBytes(report.freedBytes)) freed)"
                text += report.pageRecords > 0 ? ", and the records of \(pageRecords) that went with them.\n" : ".\n"
            }
            for page in report.removedPages ?? [] {
                text += "Removed the record of the page \(page.url) (partition \(page.partition)).\n"
            }
            for page in report.keptPages ?? [] {
                text += "Kept the record of the page \(page.url) (partition \(page.partition)): \(kept).\n"
            }
            return text
        }
        text += report.urls.map { "would remove: \($0)\n" }.joined()
        for page in report.removedPages ?? [] {
            text += "would remove the record of the page: \(page.url) (partition \(page.partition))\n"
        }
        for page in report.keptPages ?? [] {
            text += "would keep the record of the page: \(page.url) (partition \(page.partition)): \(kept)\n"
        }
        text += "Would remove \(report.entries) \(noun) (\(ValueParsers.formatBytes(report.entryBytes)), "
            + "freeing \(ValueParsers.formatBytes(report.freedBytes)))"
        text += report.pageRecords > 0 ? ", and the records of \(pageRecords) that would go with them. " : ". "
        text += "Nothing was removed (--dry-run).\n"
        return text
    }
}
