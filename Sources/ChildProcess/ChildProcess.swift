import Dispatch
import FoundationEssentials
import HTTPCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts and waits for child processes through `posix_spawn`.
///
/// Foundation's `Process.run()` on Linux (swift-corelibs-foundation up to Swift 6.3) can crash with
/// a buffer over-read while it lists `/proc/self/fd` (fixed upstream in swift-corelibs-foundation
/// pull request 5472). Token commands and the tests start many processes, so webcache spawns them
/// itself: a child gets only its three standard streams (with glibc 2.34 or later; before, every
/// descriptor that is not close-on-exec), an empty signal mask and default signal actions, and
/// waiting happens off the cooperative pool.
///
/// ```swift
/// let child = try ChildProcess.spawn("/bin/sh", ["-c", "echo hi"], output: .pipe)
/// let (status, output, _) = try await child.finish()
/// ```
public final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file, created or truncated (for output) or read (for input).
        case file(String)
        /// A pipe the parent reads to the end (output streams only).
        case pipe
        /// The parent's own stream.
        case inherit
    }

    /// How a child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// Whether it exited with status 0.
        public var succeeded: Bool { self == .exited(0) }
    }

    /// The child's process id.
    public let pid: pid_t
    private let outputPipe: Int32?
    private let errorPipe: Int32?
    /// Whether the child has been reaped: from then on its id may belong to another process, so
    /// signals are no longer sent. Held while signalling, so that reaping waits for a signal in flight.
    private let reaped = Mutex(false)

    private init(pid: pid_t, outputPipe: Int32?, errorPipe: Int32?) {
        self.pid = pid
        self.outputPipe = outputPipe
        self.errorPipe = errorPipe
    }

    /// Starts `executable` (a path; no `PATH` search) with `arguments`.
    /// - Parameters:
    ///   - environment: the child's environment; the parent's when `nil`.
    ///   - newProcessGroup: whether the child leads a process group of its own, so that
    ///     ``signalGroup(_:)`` reaches what it starts too (a shell's commands, say).
    ///   - extraDescriptors: descriptors of the parent that the child gets as 3, 4, … in this order
    ///     (a browser's DevTools pipes, say); the parent keeps its own and closes them when it likes.
    /// - Throws: ``ChildProcessError`` naming the executable when it cannot be started.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        input: Stream = .null, output: Stream = .inherit, error: Stream = .inherit, newProcessGroup: Bool = false,
        extraDescriptors: [Int32] = []
    ) throws(ChildProcessError) -> ChildProcess {
        try launch.withLock { _ throws(ChildProcessError) in
            try spawnNow(
                executable, arguments, environment: environment, input: input, output: output, error: error,
                newProcessGroup: newProcessGroup, extraDescriptors: extraDescriptors)
        }
    }

    /// Held while a pipe is made and a child started, so no child inherits another's pipe end.
    private static let launch = Mutex(())

    #if canImport(Glibc)
    private typealias CloseFrom = @Sendable @convention(c) (
        UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32
    ) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np` of glibc 2.34 and later, which the Glibc module does
    /// not import. With an older C library children get every descriptor that is not close-on-exec.
    private static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()
    #endif

    private static func spawnNow(
        _ executable: String, _ arguments: [String], environment: [String: String]?,
        input: Stream, output: Stream, error: Stream, newProcessGroup: Bool, extraDescriptors: [Int32]
    ) throws(ChildProcessError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32?] = [nil, nil]
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }

        for (descriptor, stream) in [(Int32(0), input), (1, output), (2, error)] {
            switch stream {
            case .inherit:
                continue
            case .null:
                let flags = descriptor == 0 ? O_RDONLY : O_WRONLY
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", flags, 0)
            case .file(let path):
                let flags = descriptor == 0 ? O_RDONLY : (O_WRONLY | O_CREAT | O_TRUNC)
                posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o600)
            case .pipe:
                guard descriptor != 0 else { continue }
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else {
                    let reason = String(cString: strerror(errno))
                    throw ChildProcessError("Cannot create a pipe for '\(executable)': \(reason).")
                }
                // Close-on-exec, so that no other child inherits an end (spawning is serialised by `launch`).
                _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
                parentEnds[Int(descriptor) - 1] = ends[0]
                childEnds.append(ends[1])
                posix_spawn_file_actions_adddup2(&actions, ends[1], descriptor)
            }
        }

        // Each extra descriptor is first copied above every number it goes to, so that placing one on
        // 3 cannot overwrite another still to be placed, and a copy never already has its target number
        // (dup2 onto itself would leave close-on-exec set).
        let firstFree = Int32(3 + extraDescriptors.count)
        for (offset, descriptor) in extraDescriptors.enumerated() {
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, firstFree)
            guard copy >= 0 else {
                let reason = String(cString: strerror(errno))
                throw ChildProcessError("Cannot pass descriptor \(descriptor) to '\(executable)': \(reason).")
            }
            childEnds.append(copy)
            posix_spawn_file_actions_adddup2(&actions, copy, Int32(3 + offset))
        }

        // Nothing beyond the three standard streams (and the extra descriptors) reaches the child,
        // whether or not it is close-on-exec: a socket or pipe end of another part of the process
        // (libcurl's connections, a test origin's accepted sockets) held by a long-lived child would
        // never see its peer close.
        #if canImport(Glibc)
        _ = closeFrom?(&actions, firstFree)
        #endif

        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environmentLines.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child starts with no blocked signals and every signal at its default action: the
        // parent may block or ignore signals (SIGPIPE, commonly), and exec would keep that.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var everySignal = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&everySignal)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        #if canImport(Darwin)
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_CLOEXEC_DEFAULT
        #else
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        #endif
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(flags | POSIX_SPAWN_SETPGROUP))
        } else {
            posix_spawnattr_setflags(&attributes, Int16(flags))
        }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            parentEnds.compactMap { $0 }.forEach { close($0) }
            throw ChildProcessError("Cannot start '\(executable)': \(String(cString: strerror(result))).")
        }
        return ChildProcess(pid: pid, outputPipe: parentEnds[0], errorPipe: parentEnds[1])
    }

    /// Sends `signal` to the child, unless it has ended and been reaped.
    public func send(_ signal: Int32) {
        deliver(signal, to: pid)
    }

    /// Sends `signal` to the child's process group (the child must have been started with
    /// `newProcessGroup`), unless the child has ended and been reaped.
    public func signalGroup(_ signal: Int32) {
        deliver(signal, to: -pid)
    }

    /// Sends `signal` to `target` (the child, or its group as `-pid`) while the child is not reaped.
    private func deliver(_ signal: Int32, to target: pid_t) {
        reaped.withLock { reaped in
            if !reaped { kill(target, signal) }
        }
    }

    /// Reads the piped streams to their end and waits for the child, on a thread outside the
    /// cooperative pool.
    /// - Returns: how it ended, and what it wrote to the piped streams (empty for others).
    public func finish() async -> (termination: Termination, output: Data, error: Data) {
        await withCheckedContinuation { continuation in
            POSIXThread.start { [self] in
                continuation.resume(returning: finishBlocking())
            }
        }
    }

    /// Reads the piped streams to their end and waits for the child, blocking the calling thread.
    ///
    /// For synchronous code outside Swift concurrency, such as a `deinit` or a static initialiser;
    /// async code calls ``finish()``, which leaves the cooperative pool free. Call one of them once.
    /// - Returns: how it ended, and what it wrote to the piped streams (empty for others).
    public func finishBlocking() -> (termination: Termination, output: Data, error: Data) {
        let group = DispatchGroup()
        let errorData = ChildProcess.Box()
        if let errorPipe {
            group.enter()
            POSIXThread.start {
                errorData.data = ChildProcess.readToEnd(errorPipe)
                group.leave()
            }
        }
        let output = outputPipe.map(ChildProcess.readToEnd) ?? Data()
        group.wait()
        return (waitForExit(), output, errorData.data)
    }

    private func waitForExit() -> Termination {
        // Wait for the end without reaping, then reap under the lock that signalling takes, so that
        // no signal can reach another process that was given the id in between.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1, errno == EINTR {}
        var status: Int32 = 0
        reaped.withLock { reaped in
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            reaped = true
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    private static func readToEnd(_ descriptor: Int32) -> Data {
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                data.append(buffer, count: count)
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }

    /// Carries the error stream's bytes from its reading thread; written once before `group.wait()` returns.
    private final class Box: @unchecked Sendable {
        // @unchecked: written by one thread, read by another only after DispatchGroup.wait(), which orders them.
        var data = Data()
    }
}

/// A child process could not be started.
public struct ChildProcessError: Error, Sendable, CustomStringConvertible {
    public var message: String

    init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
