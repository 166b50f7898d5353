import FoundationEssentials
import HTTPCore
import Synchronization
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
        let list = try URLListStream(path: path)
        let signals = TerminationSignals()
        defer { signals.stop() }
        return try await context.withCache(adjusting: { $0.limitConnections(to: options) }) { cache in
            let progress = PreloadProgress(json: arguments.flag("json"), stdout: context.stdout, stderr: context.stderr)
            let pages = ListedPages(list: list, cache: cache, shard: shard, stderr: context.stderr,
                                    onListed: progress.countListedPage)
            let (report, signal) = await signals.cancelling(reporting: progress.stopping) {
                await cache.preload(pages: pages, options: options, events: progress.handle)
            }
            let problems = pages.finish()
            progress.finish(report, fileProblems: problems, interrupted: signal != nil)
            if let signal { return ExitCode.interrupted(by: signal) }
            return report.succeeded && problems == 0 ? ExitCode.success : ExitCode.failure
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

/// The pages of a list as a preload reads them: each line resolved against the instance URL and
/// checked once (``WebCache/preloadPage(for:)``; a line that cannot be used is reported as
/// `FILE:LINE: reason` on standard error as it is read, the first ``URLListFile/reportedProblemLimit``
/// of them one by one), and only those of the shard when one is given.
private final class ListedPages: Sequence, Sendable {
    let list: URLListStream
    let cache: WebCache
    let shard: PreloadShard?
    let stderr: any TextOutput
    /// Called for each URL handed to the preload.
    let onListed: @Sendable () -> Void
    private let counts = Mutex(Counts())

    private struct Counts {
        var problems = 0
        var urls = 0
        var inShard = 0
    }

    init(
        list: URLListStream, cache: WebCache, shard: PreloadShard?, stderr: any TextOutput,
        onListed: @escaping @Sendable () -> Void
    ) {
        self.list = list
        self.cache = cache
        self.shard = shard
        self.stderr = stderr
        self.onListed = onListed
    }

    func makeIterator() -> AnyIterator<PreloadPage> {
        AnyIterator { self.nextPage() }
    }

    private func nextPage() -> PreloadPage? {
        while let line = list.next() {
            switch line {
            case .problem(let problem):
                report(problem)
            case .entry(let entry):
                let page: PreloadPage
                do {
                    page = try cache.preloadPage(for: entry.text)
                } catch let error as WebCacheError {
                    report(.init(file: list.name, line: entry.line, reason: error.message))
                    continue
                } catch {
                    report(.init(file: list.name, line: entry.line, reason: "\(error)"))
                    continue
                }
                let mine = shard.map { $0.contains(page.url) } ?? true
                counts.withLock { counts in
                    counts.urls += 1
                    if mine { counts.inShard += 1 }
                }
                if mine {
                    onListed()
                    return page
                }
            }
        }
        return nil
    }

    private func report(_ problem: URLListFile.Problem) {
        let count = counts.withLock { counts in
            counts.problems += 1
            return counts.problems
        }
        if count <= URLListFile.reportedProblemLimit { stderr.write(URLListFile.reportLine(problem)) }
    }

    /// Ends the list's report on standard error (how many more lines could not be used; what the
    /// shard took); returns how many lines could not be used.
    func finish() -> Int {
        let counts = counts.withLock { $0 }
        stderr.write(URLListFile.remainderLine(counts.problems - URLListFile.reportedProblemLimit, file: list.name))
        if let shard {
            stderr.write("Shard \(shard.index)/\(shard.count): \(counts.inShard) of the \(counts.urls) URLs.\n")
        }
        return counts.problems
    }
}
