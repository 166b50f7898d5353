import WebCache

/// `webcache refresh`: revalidates the stored pages and their requisites with conditional requests.
/// SIGINT or SIGTERM stop it cleanly, as they stop ``PreloadCommand``.
enum RefreshCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let arguments = context.arguments
        var scope = try PreloadScopeOptions.options(from: arguments)
        scope.includesRequisites = !arguments.flag("no-requisites")
        let options = scope
        let hosts = Set(try HostArgument.all(arguments, "host").map(\.urlHost))
        // Refreshing revalidates what is stored: a mistyped path must not create an empty store.
        try context.requireExistingStore()
        let signals = TerminationSignals()
        defer { signals.stop() }
        return try await context.withCache(adjusting: { $0.limitConnections(to: options) }) { cache in
            let pages = try cache.preloadedPages(hosts: hosts)
            // A host given that no stored page is on is most likely mistyped: say so rather than refresh nothing.
            if !hosts.isEmpty, pages.isEmpty {
                let names = hosts.sorted().map { "'\($0)'" }.joined(separator: ", ")
                throw CLIError("No page in the store '\(context.storePath)' is on \(names); inspect lists the hosts.")
            }
            let progress = PreloadProgress(json: arguments.flag("json"), pages: pages.count, verb: "Refreshed",
                                           stdout: context.stdout, stderr: context.stderr)
            let (report, signal) = await signals.cancelling(reporting: progress.stopping) {
                await cache.refresh(pages, options: options, events: progress.handle)
            }
            progress.finish(report, fileProblems: 0, interrupted: signal != nil)
            if let signal { return ExitCode.interrupted(by: signal) }
            return report.succeeded ? ExitCode.success : ExitCode.failure
        }
    }
}
