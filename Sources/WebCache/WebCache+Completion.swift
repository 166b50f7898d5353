import FoundationEssentials

/// Completion-handler forms of the async API, for callers that do not use Swift concurrency.
/// Each `completion` runs once, on an arbitrary thread.
///
/// The forms of `preload` and `refresh` take their `events` handler without a default, as Apple's
/// APIs do: a call with one trailing closure, such as `await cache.preload(urls) { event in … }`,
/// can then only mean the async form, whose trailing closure is the events handler.
extension WebCache {
    /// Completion-handler form of ``load(_:policy:)``: the response's body still streams.
    /// - Returns: the task that loads; cancelling it stops the load, and `completion` gets a
    ///   `CancellationError`.
    @discardableResult
    public func load(
        _ request: WebRequest, policy: CachePolicy = .useProtocolCachePolicy,
        completion: @escaping @Sendable (Result<WebResponse, any Error>) -> Void
    ) -> Task<Void, Never> {
        Self.complete(completion) { try await self.load(request, policy: policy) }
    }

    /// Completion-handler form of ``data(for:policy:)``.
    /// - Returns: the task that loads; cancelling it stops the load and the reading of its body, and
    ///   `completion` gets a `CancellationError`.
    @discardableResult
    public func data(
        for request: WebRequest, policy: CachePolicy = .useProtocolCachePolicy,
        completion: @escaping @Sendable (Result<LoadedResponse, any Error>) -> Void
    ) -> Task<Void, Never> {
        Self.complete(completion) { try await self.data(for: request, policy: policy) }
    }

    /// Completion-handler form of ``preload(_:options:events:)``.
    /// - Returns: the task that runs the preload; cancelling it stops the run, and `completion` still
    ///   gets the report, which then says it was ``PreloadReport/interrupted``.
    @discardableResult
    public func preload(
        _ urls: [String], options: PreloadOptions = PreloadOptions(),
        events: @escaping @Sendable (PreloadEvent) -> Void,
        completion: @escaping @Sendable (PreloadReport) -> Void
    ) -> Task<Void, Never> {
        Task { completion(await self.preload(urls, options: options, events: events)) }
    }

    /// Completion-handler form of ``refresh(hosts:options:events:)``.
    /// - Returns: the task that runs the refresh; cancelling it stops the run, and `completion` still
    ///   gets the report, which then says it was ``PreloadReport/interrupted``.
    @discardableResult
    public func refresh(
        hosts: Set<String> = [], options: PreloadOptions = PreloadOptions(),
        events: @escaping @Sendable (PreloadEvent) -> Void,
        completion: @escaping @Sendable (Result<PreloadReport, any Error>) -> Void
    ) -> Task<Void, Never> {
        Self.complete(completion) { try await self.refresh(hosts: hosts, options: options, events: events) }
    }

    /// Completion-handler form of ``refresh(_:options:events:)``.
    /// - Returns: the task that runs the refresh; cancelling it stops the run, and `completion` still
    ///   gets the report, which then says it was ``PreloadReport/interrupted``.
    @discardableResult
    public func refresh(
        _ pages: [String], options: PreloadOptions = PreloadOptions(),
        events: @escaping @Sendable (PreloadEvent) -> Void,
        completion: @escaping @Sendable (PreloadReport) -> Void
    ) -> Task<Void, Never> {
        Task { completion(await self.refresh(pages, options: options, events: events)) }
    }

    /// Completion-handler form of ``logout()``: `completion` gets `nil` on success.
    public func logout(completion: @escaping @Sendable ((any Error)?) -> Void) {
        Self.complete({ (result: Result<Void, any Error>) in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }) { try await self.logout() }
    }

    /// Completion-handler form of ``finishRevalidations()``.
    public func finishRevalidations(completion: @escaping @Sendable () -> Void) {
        Task {
            await self.finishRevalidations()
            completion()
        }
    }

    /// Completion-handler form of ``close()``.
    public func close(completion: @escaping @Sendable () -> Void) {
        Task {
            await self.close()
            completion()
        }
    }

    /// Completion-handler form of ``instanceUser(at:field:configuration:)``.
    /// - Returns: the task that asks; cancelling it stops the request, and `completion` gets a
    ///   `CancellationError`.
    @discardableResult
    public static func instanceUser(
        at whoAmIURL: URL, field: String, configuration: Configuration,
        completion: @escaping @Sendable (Result<InstanceUser, any Error>) -> Void
    ) -> Task<Void, Never> {
        complete(completion) { try await instanceUser(at: whoAmIURL, field: field, configuration: configuration) }
    }

    /// Runs `operation` in a new task and hands its result to `completion`: the bridge these forms
    /// need, and the only reason the library starts a task for a caller.
    /// - Returns: the task, for the forms that let their caller cancel it.
    @discardableResult
    private static func complete<T: Sendable>(
        _ completion: @escaping @Sendable (Result<T, any Error>) -> Void,
        _ operation: @escaping @Sendable () async throws -> T
    ) -> Task<Void, Never> {
        Task {
            do {
                completion(.success(try await operation()))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
