import Dispatch
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
        // Process I/O blocks: run it on a Dispatch thread, not on the cooperative pool.
        let output: Data = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(command) })
            }
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

    private static func runBlocking(_ command: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw AuthorizationError(
                code: .commandFailed,
                message: "The token command `\(command)` could not be started.",
                cause: error
            )
        }
        // Read before waiting: a command that fills the pipe would otherwise never exit.
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how =
                process.terminationReason == .exit
                ? "exited with status \(process.terminationStatus)"
                : "was killed by signal \(process.terminationStatus)"
            throw AuthorizationError(code: .commandFailed, message: "The token command `\(command)` \(how).")
        }
        return output
    }
}
