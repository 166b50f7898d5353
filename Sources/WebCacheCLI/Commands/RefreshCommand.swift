import WebCache

/// `webcache refresh`: revalidates the stored pages and their requisites with conditional requests.
enum RefreshCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let arguments = context.arguments
        var options = PreloadOptions()
        options.concurrency = try arguments.value("concurrency", "n", ValueParsers.count(in: 1...1024)) ?? options.concurrency
        let hosts = Set(arguments.allValues("host").map { $0.lowercased() })
        return try await context.withCache(adjusting: { $0.limitConnections(to: options) }) { cache in
            let progress = PreloadProgress(json: arguments.flag("json"), pages: 0, stdout: context.stdout,
                                           stderr: context.stderr)
            let report = try await cache.refresh(hosts: hosts, options: options, events: progress.handle)
            progress.finish(report, fileProblems: 0)
            return report.succeeded ? ExitCode.success : ExitCode.failure
        }
    }
}
