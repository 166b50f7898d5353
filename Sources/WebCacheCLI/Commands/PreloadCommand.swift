import Foundation
import HTTPCore
import WebCache

/// `webcache preload FILE`: preloads the pages a file lists, with their sub-resources. SIGINT or
/// SIGTERM stop it cleanly: what settled is recorded, the summary says it was interrupted, and the
/// exit code is the shell's for the signal (130 or 143); a second signal ends it at once.
enum PreloadCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let arguments = context.arguments
        let path = arguments.positionals[0]
        // Options first: a usage error is reported before standard input or a pipe is read.
        let options = try preloadOptions(arguments)
        let shard = try arguments.value("shard", "K/N", ValueParsers.shard)
        let list = try URLListFile(path: path)
        let signals = TerminationSignals()
        defer { signals.stop() }
        return try await context.withCache(adjusting: { $0.limitConnections(to: options) }) { cache in
            var problems = list.problems
            var urls: [String] = []
            for entry in list.entries {
                do {
                    urls.append(try cache.resolve(entry.text).absoluteString)
                } catch let error as WebCacheError {
                    problems.append(.init(file: list.name, line: entry.line, reason: error.message))
                }
            }
            context.stderr.write(URLListFile.report(problems))
            if let shard {
                let all = urls.count
                urls = urls.filter { URL(string: $0).map(shard.contains) ?? false }
                context.stderr.write("Shard \(shard.index)/\(shard.count): \(urls.count) of the \(all) URLs.\n")
            }
            let progress = PreloadProgress(json: arguments.flag("json"), pages: urls.count, stdout: context.stdout,
                                           stderr: context.stderr)
            let (report, signal) = await signals.cancelling(reporting: progress.stopping) { [urls] in
                await cache.preload(urls, options: options, events: progress.handle)
            }
            progress.finish(report, fileProblems: problems.count, interrupted: signal != nil)
            if let signal { return ExitCode.interrupted(by: signal) }
            return report.succeeded && problems.isEmpty ? ExitCode.success : ExitCode.failure
        }
    }

    /// The engine options for the command line's options.
    static func preloadOptions(_ arguments: ParsedArguments) throws(UsageError) -> PreloadOptions {
        var options = try PreloadScopeOptions.options(from: arguments)
        options.depth = try arguments.value("depth", "n", ValueParsers.count(in: 0...100)) ?? options.depth
        options.includesRequisites = !arguments.flag("no-requisites")
        return options
    }
}
