import CacheStore
import Foundation
import Testing

@testable import WebCacheCLI

/// How `prune`'s options become criteria or an eviction target, without a store.
struct PrunePlanTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func plan(_ arguments: [String]) throws -> PruneCommand.Plan {
        guard case .run(let spec, let parsed) = try CommandLineInterface.parse(["prune"] + arguments) else {
            throw UsageError("not a run")
        }
        #expect(spec.name == "prune")
        return try PruneCommand.makePlan(parsed, now: now)
    }

    @Test func combinesCriteria() throws {
        let plan = try plan([
            "--expired", "--older-than", "30d", "--host", "CDN.a.test", "--url-pattern", "*.css", "--partition",
            "guest", "--include-pinned",
        ])
        let expected = PruneCriteria(
            expiredAt: now, storedBefore: now.addingTimeInterval(-30 * 86_400), host: "cdn.a.test",
            urlPattern: "*.css", partition: "guest", includePinned: true)
        #expect(plan == .criteria(expected))
    }

    @Test func prunesAPageAloneOrWithOtherCriteria() throws {
        let page = "https://a.test/page.html"
        #expect(try plan(["--page", page]) == .criteria(PruneCriteria(page: page)))
        #expect(
            try plan(["--page", page, "--expired", "--partition", "user-1"])
                == .criteria(PruneCriteria(expiredAt: now, partition: "user-1", page: page)))
    }

    @Test func helpListsThePageOption() {
        let help = HelpFormatter.help(for: CommandCatalog.prune)
        #expect(help.contains("\n  --page <url>            This page (relative to --instance if not absolute) and"))
        #expect(help.contains("--page removes a whole page"))
        #expect(CommandCatalog.prune.usage.contains(" [--page <url>] "))
    }

    @Test func compactsAloneOrAfterTheCriteria() throws {
        #expect(try plan(["--compact"]) == .nothing)
        #expect(try plan(["--expired", "--compact"]) == .criteria(PruneCriteria(expiredAt: now)))
    }

    @Test func evictsToASize() throws {
        #expect(try plan(["--max-size", "10MiB"]) == .fit(byteLimit: 10 * 1024 * 1024))
        #expect(try plan(["--max-size", "0", "-n"]) == .fit(byteLimit: 0))
    }

    @Test(arguments: [
        ([], "Give at least one of --expired, --older-than, --host, --url-pattern, --partition, --page or "
            + "--max-size; to remove every entry, give --url-pattern '*'"),
        (["--include-pinned"], "Give at least one of"),
        (["--dry-run"], "Give at least one of"),
        (["--host", ""], "The value '' is invalid for '--host <host>'"),
        (["--older-than", "soon"], "The value 'soon' is invalid for '--older-than <duration>'"),
        (["--max-size", "-4K"], "The value '-4K' is invalid for '--max-size <size>'"),
        (["--max-size", "1G", "--expired"], "--max-size evicts by last access alone"),
        (["--max-size", "1G", "--include-pinned"], "--max-size evicts by last access alone"),
        (["--max-size", "1G", "--page", "https://a.test/"], "--max-size evicts by last access alone"),
        (["--page", "page.html"],
         "The value 'page.html' is invalid for '--page <url>': it is a relative URL, and there is no --instance "
            + "<url> to resolve it against"),
        (["--page", "ftp://a.test/page.html"], "The value 'ftp://a.test/page.html' is invalid for '--page <url>'"),
        (["--compact", "--dry-run"], "--compact rewrites the store, which --dry-run promises not to do"),
        (["--compact", "--include-pinned"], "Give at least one of"),
    ])
    func refusesPlansThatAreNotClear(arguments: [String], message: String) {
        let error = #expect(throws: UsageError.self) { try plan(arguments) }
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "no error")")
        #expect(error?.commandName == "prune")
    }
}
