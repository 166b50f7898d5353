import CacheStore
import FoundationEssentials

/// `webcache pin URL [--unpin] [--partition NAME]`: keeps a page and every stored resource it needs
/// (when the page has recorded resources), or a single entry, out of eviction; or lets it go again.
enum PinCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let url = try context.arguments.requestURL(context.arguments.positionals[0], for: "<url>").absoluteString
        let pinned = !context.arguments.flag("unpin")
        let onlyPartition = try context.arguments.value("partition", "name") { $0.isEmpty ? nil : $0 }
        return try await context.withExistingStore { store in
            // The partitions where the URL is stored or has recorded resources, under the first form found.
            var targets: [(partition: String, url: String, isPage: Bool)] = []
            for form in CommandContext.storedForms(of: url) where targets.isEmpty {
                let pages = Set(try store.pages(partition: onlyPartition, url: form).map(\.partition))
                var partitions = Set(try store.entries(url: form).map(\.partition)).union(pages)
                if let onlyPartition { partitions = partitions.filter { $0 == onlyPartition } }
                targets = partitions.sorted().map { ($0, form, pages.contains($0)) }
            }
            guard !targets.isEmpty else {
                let scope = onlyPartition.map { " (partition \($0))" } ?? ""
                throw CLIError("'\(url)' is not in the store '\(store.path)'\(scope).")
            }
            let verb = pinned ? "Pinned" : "Unpinned"
            var status = ExitCode.success
            for target in targets {
                var kept = 0
                let count: Int
                if target.isPage {
                    let change = try await store.setPinned(pinned, page: target.url, partition: target.partition)
                    count = change.entries
                    kept = change.neededByPinnedPages
                } else {
                    count = try await store.setPinned(pinned, url: target.url, partition: target.partition)
                }
                guard count > 0 else {
                    // Only the record of the page's resources is left (its entries were pruned).
                    context.stderr.write(
                        "webcache: nothing of the page \(target.url) is stored in partition \(target.partition); "
                            + "preload it again first.\n")
                    status = ExitCode.failure
                    continue
                }
                let noun = count == 1 ? "entry" : "entries"
                let what = target.isPage ? "the page and the stored resources it needs" : "the entry"
                let others = kept == 0 ? "" : "; \(kept) of them stay pinned, as another pinned page needs them"
                context.stdout.write(
                    "\(verb) \(count) \(noun) in partition \(target.partition): \(what) (\(target.url))\(others).\n")
            }
            return status
        }
    }
}
