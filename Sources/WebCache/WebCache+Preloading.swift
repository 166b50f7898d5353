import CacheStore
import FoundationEssentials
import HTTPCore

extension WebCache {
    /// Preloads pages and every sub-resource they need into the store, concurrently.
    ///
    /// A URL that cannot be used (not http(s), relative without an instance URL) is reported as a
    /// failure naming it, and the others go on. Running it again revalidates: fresh entries cost no
    /// request (nor, when nothing in them is looked for, a read of their bodies), stale ones get
    /// conditional requests.
    ///
    /// `urls` is read as the run goes, a few hundred pages ahead of what has settled, so a lazy
    /// sequence (the lines of a file as it is read) keeps a run over millions of URLs in flat memory;
    /// each URL is preloaded once however often it is listed.
    ///
    /// Cancelling the calling task stops the run cleanly: no fetch starts any more, those in flight
    /// are given up, what was stored stays, and the report (``PreloadReport/interrupted``) says what
    /// was done and how much was left. ``close()`` stops it the same way, and waits for it.
    ///
    /// ```swift
    /// let report = await cache.preload(["index.html", "about.html"]) { event in print(event) }
    /// print(report.completed, report.failures)
    /// ```
    ///
    /// - Parameters:
    ///   - urls: the pages, absolute or relative to the instance URL.
    ///   - options: concurrency, depth, scope and limits.
    ///   - events: progress, called in order from one task at a time.
    /// - Returns: what was stored, from where, and what failed.
    public func preload<URLs: Sequence<String> & Sendable>(
        _ urls: URLs, options: PreloadOptions = PreloadOptions(),
        events: @escaping @Sendable (PreloadEvent) -> Void = { _ in }
    ) async -> PreloadReport {
        await preload(listed: ResolvedPages(references: urls, cache: self), options: options, events: events)
    }

    /// Preloads pages resolved and checked beforehand (``preloadPage(for:)``), as
    /// ``preload(_:options:events:)`` does with references: each page's URL is taken as it is,
    /// without being parsed again.
    ///
    /// ```swift
    /// var pages: [PreloadPage] = []
    /// for line in lines {
    ///     do { pages.append(try cache.preloadPage(for: line)) } catch { print("skipped: \(error)") }
    /// }
    /// let report = await cache.preload(pages: pages)
    /// ```
    public func preload<Pages: Sequence<PreloadPage> & Sendable>(
        pages: Pages, options: PreloadOptions = PreloadOptions(),
        events: @escaping @Sendable (PreloadEvent) -> Void = { _ in }
    ) async -> PreloadReport {
        await preload(listed: CheckedPages(pages: pages), options: options, events: events)
    }

    private func preload(
        listed: some Sequence<Preloader.ListedPage> & Sendable, options: PreloadOptions,
        events: @escaping @Sendable (PreloadEvent) -> Void
    ) async -> PreloadReport {
        if let render = options.render {
            let renderer = RenderPreloader(loader: loader, context: context, options: options, render: render,
                                           logger: configuration.logger)
            var pages: [URL] = []
            var invalid: [PreloadReport.Problem] = []
            for entry in listed {
                switch entry {
                case .page(let page): pages.append(page.url)
                case .invalid(let problem): invalid.append(problem)
                }
            }
            for problem in invalid {
                if let url = URL(string: problem.url) { events(.failed(url: url, reason: problem.reason)) }
            }
            var report = await running.stoppable { [pages] in await renderer.run(pages: pages, events: events) }
            report.failures.insert(contentsOf: invalid, at: 0)
            return report
        }
        let preloader = Preloader(loader: loader, context: context, options: options, logger: configuration.logger)
        return await running.stoppable { await preloader.run(pages: listed, events: events) }
    }

    /// The preloaded pages in the store, in this cache's partition, as absolute URL strings.
    ///
    /// - Parameter hosts: only pages on these hosts, compared as URLs give hosts (in any case, IPv6
    ///   addresses with or without brackets, internationalised names as written); all when empty.
    /// - Throws: ``WebCacheError`` when the store cannot list its pages.
    public func preloadedPages(hosts: Set<String> = []) throws -> [String] {
        let pages: [String]
        do {
            pages = try store.pages(partition: partition).map(\.url)
        } catch {
            throw WebCacheError(
                .store, "The store at '\(configuration.storePath)' could not list its preloaded pages.", cause: error)
        }
        let wanted = Set(hosts.map(PreloadOptions.comparableHost))
        return pages.filter { page in
            wanted.isEmpty || URL(string: page)?.host.map { wanted.contains($0.lowercased()) } == true
        }
    }

    /// Revalidates the preloaded pages in the store, and their requisites, with conditional requests
    /// (fresh entries too, as a reload would; `immutable` ones stay).
    ///
    /// - Parameters:
    ///   - hosts: only pages on these hosts, as ``preloadedPages(hosts:)`` compares them; all when empty.
    /// - Throws: ``WebCacheError`` when the store cannot list its pages.
    public func refresh(
        hosts: Set<String> = [], options: PreloadOptions = PreloadOptions(),
        events: @escaping @Sendable (PreloadEvent) -> Void = { _ in }
    ) async throws -> PreloadReport {
        await refresh(try preloadedPages(hosts: hosts), options: options, events: events)
    }

    /// Revalidates `pages` (such as some of ``preloadedPages(hosts:)``) and their requisites with
    /// conditional requests, as ``refresh(hosts:options:events:)`` does for every preloaded page.
    public func refresh(
        _ pages: [String], options: PreloadOptions = PreloadOptions(),
        events: @escaping @Sendable (PreloadEvent) -> Void = { _ in }
    ) async -> PreloadReport {
        var refreshing = options
        refreshing.revalidatesFreshEntries = true
        return await preload(pages, options: refreshing, events: events)
    }
}

/// Page references resolved one by one as the preload engine reads them: each a URL, or the problem
/// that names the reference.
private struct ResolvedPages<References: Sequence<String> & Sendable>: Sequence, Sendable {
    let references: References
    let cache: WebCache

    func makeIterator() -> Iterator {
        Iterator(references: references.makeIterator(), cache: cache)
    }

    struct Iterator: IteratorProtocol {
        var references: References.Iterator
        let cache: WebCache

        mutating func next() -> Preloader.ListedPage? {
            guard let reference = references.next() else { return nil }
            do {
                return .page(try cache.preloadPage(for: reference))
            } catch let error as WebCacheError {
                return .invalid(.init(url: URLReference.excerpt(reference), reason: error.message))
            } catch {
                return .invalid(.init(url: URLReference.excerpt(reference), reason: "\(error)"))
            }
        }
    }
}

/// Pages resolved and checked beforehand, handed to the preload engine as they are read.
private struct CheckedPages<Pages: Sequence<PreloadPage> & Sendable>: Sequence, Sendable {
    let pages: Pages

    func makeIterator() -> Iterator {
        Iterator(pages: pages.makeIterator())
    }

    struct Iterator: IteratorProtocol {
        var pages: Pages.Iterator

        mutating func next() -> Preloader.ListedPage? {
            pages.next().map { .page($0) }
        }
    }
}
