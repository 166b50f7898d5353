import ChildProcess
import Foundation

/// Runs a shell command and uses what it prints as the bearer token, like a git credential helper.
///
/// The command runs with `/bin/sh -c`; its standard output, with surrounding whitespace removed, is the
/// token. It runs once and the token is reused until a forced refresh runs it again (concurrent
/// callers share one run). Its standard error is discarded and its output never appears in errors,
/// since either may hold the secret.
///
/// ```swift
/// let provider = CommandTokenProvider(command: "vault read -field=token secret/instance")
/// ```
public struct CommandTokenProvider: AuthorizationProviding {
    /// The shell command line.
    public let command: String
    private let cache = TokenCache()

    /// Creates a provider that runs `command` with `/bin/sh -c`.
    public init(command: String) {
        self.command = command
    }

    /// The command's output as a bearer token; the cached one unless `forceRefresh` is set.
    ///
    /// - Throws: ``AuthorizationError`` with code `commandFailed` (it could not start or exited with a
    ///   non-zero status) or `commandProducedNoToken` (it printed only whitespace).
    public func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        let command = command
        return try await cache.token(forceRefresh: forceRefresh) { _ in
            try await Self.run(command)
        }
    }

    /// Forgets the cached output.
    public func removeCachedToken() async {
        await cache.clear()
    }

    // MARK: - Running the command

    private static func run(_ command: String) async throws -> AuthorizationToken {
        let child: ChildProcess
        do {
            // The command's error output goes to webcache's own, where the user can see why it failed.
            child = try ChildProcess.spawn("/bin/sh", ["-c", command], output: .pipe, error: .inherit)
        } catch {
            throw AuthorizationError(
                code: .commandFailed,
                message: "The token command `\(command)` could not be started.",
                cause: error
            )
        }
        let (termination, output, _) = await child.finish()
        switch termination {
        case .exited(0):
            break
        case .exited(let status):
            throw AuthorizationError(code: .commandFailed, message: "The token command `\(command)` exited with status \(status).")
        case .signalled(let signal):
            throw AuthorizationError(code: .commandFailed, message: "The token command `\(command)` was killed by signal \(signal).")
        }
        let token = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw AuthorizationError(
                code: .commandProducedNoToken,
                message: "The token command `\(command)` printed no token on its standard output."
            )
        }
        return AuthorizationToken(value: token)
    }
}
