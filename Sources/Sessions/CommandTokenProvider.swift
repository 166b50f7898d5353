import ChildProcess
import Dispatch
import FoundationEssentials
import HTTPCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a shell command and uses what it prints as the bearer token, like a git credential helper.
///
/// The command runs with `/bin/sh -c`; its standard output, with surrounding whitespace removed, is the
/// token. It runs once and the token is reused until a forced refresh runs it again (concurrent
/// callers share one run). Its standard error goes to webcache's own, and its output never appears
/// in errors, since it holds the secret. A command that has not finished within ``timeout`` is
/// stopped (`SIGTERM` to its process group, then `SIGKILL`), and the token request fails. So is one
/// whose callers are all cancelled (a preload stopped by Ctrl-C), which then ends with
/// `CancellationError`.
///
/// ```swift
/// let provider = CommandTokenProvider(command: "vault read -field=token secret/instance")
/// ```
public struct CommandTokenProvider: AuthorizationProviding {
    /// The shell command line.
    public let command: String
    /// How long the command may run.
    public let timeout: Duration
    private let cache = TokenCache()

    /// Creates a provider that runs `command` with `/bin/sh -c`, for at most `timeout`.
    public init(command: String, timeout: Duration = .seconds(120)) {
        self.command = command
        self.timeout = timeout
    }

    /// The command's output as a bearer token; the cached one unless `forceRefresh` is set.
    ///
    /// - Throws: ``AuthorizationError`` with code `commandFailed` (it could not start, exited with a
    ///   non-zero status, or ran past ``timeout``) or `commandProducedNoToken` (it printed only whitespace).
    public func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        let command = command
        let timeout = timeout
        return try await cache.token(forceRefresh: forceRefresh) { _ in
            try await Self.run(command, timeout: timeout)
        }
    }

    /// Forgets the cached output.
    public func removeCachedToken() async {
        await cache.clear()
    }

    // MARK: - Running the command

    private static func run(_ command: String, timeout: Duration) async throws -> AuthorizationToken {
        let child: ChildProcess
        do {
            // The command's error output goes to webcache's own, where the user can see why it failed.
            // Its own process group lets a timeout stop what the shell started as well.
            child = try ChildProcess.spawn(
                "/bin/sh", ["-c", command], output: .pipe, error: .inherit, newProcessGroup: true)
        } catch {
            throw AuthorizationError(
                code: .commandFailed,
                message: "The token command `\(command)` could not be started.",
                cause: error
            )
        }
        let (termination, output, stopped) = await withTaskCancellationHandler {
            await finish(child, within: timeout)
        } onCancel: {
            stop(child)
        }
        try Task.checkCancellation()
        if stopped {
            throw AuthorizationError(
                code: .commandFailed,
                message: "The token command `\(command)` did not finish within \(timeout), so it was stopped.")
        }
        switch termination {
        case .exited(0):
            break
        case .exited(let status):
            throw AuthorizationError(code: .commandFailed, message: "The token command `\(command)` exited with status \(status).")
        case .signalled(let signal):
            throw AuthorizationError(code: .commandFailed, message: "The token command `\(command)` was killed by signal \(signal).")
        }
        let token = String(decoding: output, as: UTF8.self).trimmingWhitespaceAndNewlines()
        guard !token.isEmpty else {
            throw AuthorizationError(
                code: .commandProducedNoToken,
                message: "The token command `\(command)` printed no token on its standard output."
            )
        }
        if let problem = AuthorizationToken.problem(with: token) {
            throw AuthorizationError(
                code: .commandProducedNoToken,
                message: "The token command `\(command)` printed no token on its standard output: \(problem).")
        }
        return AuthorizationToken(value: token)
    }

    /// Stops `child`'s process group because its callers were cancelled: `SIGTERM`, then `SIGKILL`
    /// if it is still there ten seconds later. A command gets longer to clean up here than after a
    /// timeout: the user who stopped webcache can signal it once more to end it at once.
    private static func stop(_ child: ChildProcess) {
        child.signalGroup(SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(10)) {
            child.signalGroup(SIGKILL)
        }
    }

    /// How long a command stopped by `SIGTERM` after its timeout has to end before it is killed.
    private static let killDelay = Duration.seconds(2)

    /// Waits for `child`; once `timeout` has passed, stops its process group, with `SIGKILL` if
    /// `SIGTERM` has not ended it within ``killDelay``.
    /// - Returns: how it ended, its output, and whether it was stopped.
    private static func finish(_ child: ChildProcess, within timeout: Duration) async
        -> (termination: ChildProcess.Termination, output: Data, stopped: Bool)
    {
        await withTaskGroup(of: (ChildProcess.Termination, Data)?.self) { group in
            let stopped = Mutex(false)
            group.addTask {
                let (termination, output, _) = await child.finish()
                return (termination, output)
            }
            group.addTask {
                guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
                stopped.withLock { $0 = true }
                child.signalGroup(SIGTERM)
                guard (try? await Task.sleep(for: killDelay)) != nil else { return nil }
                child.signalGroup(SIGKILL)
                return nil
            }
            var result: (ChildProcess.Termination, Data) = (.exited(0), Data())
            for await value in group {
                guard let value else { continue }
                result = value
                group.cancelAll()
            }
            return (result.0, result.1, stopped.withLock { $0 })
        }
    }
}
