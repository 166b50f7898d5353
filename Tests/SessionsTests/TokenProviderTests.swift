import Foundation
import Testing

@testable import Sessions

/// The static, guest, command and file providers.
@Suite(.timeLimit(.minutes(5)))
final class TokenProviderTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Static and guest

    @Test func staticProviderReturnsTheSameTokenEvenWhenForced() async throws {
        let provider = StaticTokenProvider(accessToken: "static-abc")
        #expect(try await provider.token(forceRefresh: false)?.value == "static-abc")
        #expect(try await provider.token(forceRefresh: true)?.value == "static-abc")
    }

    @Test func staticProviderRefusesAnExpiredToken() async throws {
        let token = AuthorizationToken(value: "old", expiresAt: Date(timeIntervalSince1970: 1_000))
        let error = await #expect(throws: AuthorizationError.self) {
            try await StaticTokenProvider(token: token).token(forceRefresh: false)
        }
        #expect(error?.code == .tokenExpired)
        #expect(error?.description.contains("old") == false)
    }

    @Test func guestProviderHasNoToken() async throws {
        #expect(try await GuestProvider().token(forceRefresh: true) == nil)
    }

    @Test func completionHandlerFormDeliversTheToken() async throws {
        let provider = StaticTokenProvider(accessToken: "via-callback")
        let value: String? = try await withCheckedThrowingContinuation { continuation in
            provider.token(forceRefresh: false) { result in
                continuation.resume(with: result.map { $0?.value })
            }
        }
        #expect(value == "via-callback")
    }

    @Test func completionHandlerFormDeliversTheError() async {
        let provider = CommandTokenProvider(command: "exit 3")
        let result: Result<AuthorizationToken?, any Error> = await withCheckedContinuation { continuation in
            provider.token(forceRefresh: false) { continuation.resume(returning: $0) }
        }
        #expect((try? result.get()) == nil)
        if case .failure(let error) = result {
            #expect((error as? AuthorizationError)?.code == .commandFailed)
        } else {
            Issue.record("expected a failure")
        }
    }

    // MARK: - Command

    @Test func commandOutputIsTheTrimmedToken() async throws {
        let provider = CommandTokenProvider(command: "printf '  tok-123\\n\\n'")
        let token = try #require(try await provider.token(forceRefresh: false))
        #expect(token.value == "tok-123")
        #expect(token.type == .bearer)
    }

    @Test func commandRunsAgainOnlyOnForcedRefresh() async throws {
        // Given: a command that counts its runs in a file.
        let counter = directory.appendingPathComponent("runs").path
        let provider = CommandTokenProvider(command: "echo run >> '\(counter)'; echo token-$(wc -l < '\(counter)')")
        // When / Then
        #expect(try await provider.token(forceRefresh: false)?.value == "token-1")
        #expect(try await provider.token(forceRefresh: false)?.value == "token-1")
        #expect(try await provider.token(forceRefresh: true)?.value == "token-2")
        await provider.removeCachedToken()
        #expect(try await provider.token(forceRefresh: false)?.value == "token-3")
    }

    @Test func failingCommandNamesTheCommandNotItsOutput() async {
        let command = "printf '%s%s' sec ret; exit 1"
        let error = await #expect(throws: AuthorizationError.self) {
            try await CommandTokenProvider(command: command).token(forceRefresh: false)
        }
        #expect(error?.code == .commandFailed)
        #expect(error?.message.contains(command) == true)
        #expect(error?.message.contains("status 1") == true)
        #expect(error?.description.contains("secret") == false)
    }

    @Test func aCommandThatHangsIsStoppedWithEverythingItStarted() async throws {
        // Given: a command whose shell starts a long sleep that holds the output pipe open, and
        // records the sleep's process id.
        let pidFile = directory.appendingPathComponent("sleeper").path
        let command = "sleep 300 & echo $! > '\(pidFile)'; wait"
        let started = ContinuousClock.now
        // When
        let error = await #expect(throws: AuthorizationError.self) {
            try await CommandTokenProvider(command: command, timeout: .milliseconds(300)).token(forceRefresh: false)
        }
        // Then: a clear error naming the command, well before the sleep would have ended, and the
        // sleep is gone too.
        #expect(error?.code == .commandFailed)
        #expect(error?.message.contains(command) == true)
        #expect(error?.message.contains("did not finish within") == true, "\(String(describing: error))")
        // Far below the sleep's 300 seconds even on a loaded machine, where a stop takes a few.
        #expect(ContinuousClock.now - started < .seconds(240))
        let sleeper = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie waiting for whoever inherited it to reap it: either way no longer running.
        // It closed the pipe as it began to exit, so it may take a moment to get there.
        #expect(try await hasStopped(sleeper), "the command's own child still runs")
    }

    @Test func aCommandThatIgnoresTermIsKilled() async throws {
        let command = "trap '' TERM; sleep 60 & wait; sleep 60"
        let error = await #expect(throws: AuthorizationError.self) {
            try await CommandTokenProvider(command: command, timeout: .milliseconds(200)).token(forceRefresh: false)
        }
        #expect(error?.code == .commandFailed)
        #expect(error?.message.contains("did not finish within") == true)
    }

    /// The process id the file at `path` holds once it does (the test's time limit bounds the wait).
    private func processID(in path: String) async throws -> pid_t {
        while true {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return pid
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether process `pid` still runs (a zombie does not).
    private func isRunning(_ pid: pid_t) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.isEmpty && stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }

    /// Whether process `pid` stops running within ten seconds.
    private func hasStopped(_ pid: pid_t) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while isRunning(pid), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return !isRunning(pid)
    }

    @Test func cancellingTheOnlyCallerStopsTheCommand() async throws {
        // Given: a command that would run for five minutes, asked for a token by one task
        let pidFile = directory.appendingPathComponent("cancelled").path
        let provider = CommandTokenProvider(command: "echo $$ > '\(pidFile)'; exec sleep 300")
        let caller = Task { try await provider.token(forceRefresh: false) }
        let pid = try await processID(in: pidFile)
        // Should the test fail, the command must not outlive it: it holds the test runner's error output.
        defer { kill(-pid, SIGKILL) }
        #expect(isRunning(pid))

        // When the task is cancelled
        caller.cancel()

        // Then it ends with CancellationError, and so does the command
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(try await hasStopped(pid))
    }

    @Test func commandWithEmptyOutputIsAnError() async {
        let command = "printf '   \\n'"
        let error = await #expect(throws: AuthorizationError.self) {
            try await CommandTokenProvider(command: command).token(forceRefresh: false)
        }
        #expect(error?.code == .commandProducedNoToken)
        #expect(error?.message.contains(command) == true)
    }

    @Test func concurrentCallersShareOneCommandRun() async throws {
        let counter = directory.appendingPathComponent("concurrent").path
        let provider = CommandTokenProvider(command: "echo run >> '\(counter)'; echo shared")
        let values = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<50 { group.addTask { try await provider.token(forceRefresh: false)?.value } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: "shared", count: 50))
        #expect(try String(contentsOfFile: counter, encoding: .utf8) == "run\n")
    }

    // MARK: - File

    @Test func fileProviderReadsAgainOnlyOnForcedRefresh() async throws {
        // Given
        let file = directory.appendingPathComponent("token")
        try "first-token\n".write(to: file, atomically: true, encoding: .utf8)
        let provider = FileTokenProvider(fileURL: file)
        #expect(try await provider.token(forceRefresh: false)?.value == "first-token")
        // When
        try "second-token".write(to: file, atomically: true, encoding: .utf8)
        // Then
        #expect(try await provider.token(forceRefresh: false)?.value == "first-token")
        #expect(try await provider.token(forceRefresh: true)?.value == "second-token")
    }

    @Test func aFileThatCannotBeReadIsAnErrorNamingItInWords() async {
        let missing = directory.appendingPathComponent("absent-token")
        for (file, reason) in [(missing, "does not exist"), (directory, "is a directory")] {
            let error = await #expect(throws: AuthorizationError.self) {
                try await FileTokenProvider(fileURL: file).token(forceRefresh: false)
            }
            #expect(error?.code == .fileUnreadable)
            #expect(error?.description == "The token file '\(file.path)' \(reason).")
        }
    }

    @Test func aTokenIsReadFromAPipe() async throws {
        // What `--token-file <(get-token)` gives: a descriptor of a pipe, which Foundation refuses to read.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        _ = "piped-token\n".withCString { write(ends[1], $0, strlen($0)) }
        close(ends[1])
        defer { close(ends[0]) }
        let provider = FileTokenProvider(fileURL: URL(fileURLWithPath: "/dev/fd/\(ends[0])"))
        #expect(try await provider.token(forceRefresh: false)?.value == "piped-token")
    }

    /// What a command or file holds that cannot be a token (a prompt before it, words, a NUL) is an
    /// error naming the command or file and why, never quoting the output, before anything is sent.
    @Test(arguments: [
        ("echo 'Enter passphrase:'; echo secret-token", "it is more than one line, where a token is one word"),
        ("echo not a secret-token", "it holds a space, where a token is one word"),
        ("printf 'secret-token\\001x'", "it holds a control character"),
        ("printf 'secret-token\\303\\251'", "it holds a character that is not ASCII"),
    ])
    func outputThatIsNoTokenIsAnError(command: String, reason: String) async throws {
        let error = await #expect(throws: AuthorizationError.self) {
            try await CommandTokenProvider(command: command).token(forceRefresh: false)
        }
        #expect(error?.code == .commandProducedNoToken)
        #expect(error?.message == "The token command `\(command)` printed no token on its standard output: \(reason).")
        let file = directory.appendingPathComponent("words-token")
        try "two words\n".write(to: file, atomically: true, encoding: .utf8)
        let fileError = await #expect(throws: AuthorizationError.self) {
            try await FileTokenProvider(fileURL: file).token(forceRefresh: false)
        }
        #expect(fileError?.message
            == "The token file '\(file.path)' holds no token: it holds a space, where a token is one word.")
    }

    @Test func emptyFileIsAnErrorNamingIt() async throws {
        let file = directory.appendingPathComponent("empty-token")
        try " \n".write(to: file, atomically: true, encoding: .utf8)
        let error = await #expect(throws: AuthorizationError.self) {
            try await FileTokenProvider(fileURL: file).token(forceRefresh: false)
        }
        #expect(error?.code == .fileEmpty)
        #expect(error?.message.contains(file.path) == true)
    }
}
