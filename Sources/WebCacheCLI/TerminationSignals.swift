import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, caught while a command runs so that it can stop cleanly: the first one is
/// handed to the command; a second one ends the process at once by the signal's default action, so
/// that a command winding down never holds its user up. After ``stop()`` a signal ends the process
/// at once again.
final class TerminationSignals: Sendable {
    /// The signals caught.
    static let numbers = [SIGINT, SIGTERM]

    /// The first signal caught.
    private let first: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    /// How many signals were caught.
    private let count = Atomic<Int>(0)

    /// Starts catching SIGINT and SIGTERM.
    init() {
        (first, continuation) = AsyncStream.makeStream(of: Int32.self)
        TerminationSignals.catching.withLock { $0.append(self) }
        TerminationSignals.watch()
    }

    /// Waits for the first signal and returns its number; `nil` when the waiting task is cancelled,
    /// or ``stop()`` was called, first.
    func received() async -> Int32? {
        var iterator = first.makeAsyncIterator()
        return await iterator.next()
    }

    /// Runs `operation` and cancels it on the first signal, which it is then expected to end soon
    /// after; `report` is told the signal's number as it is cancelled.
    /// - Returns: what `operation` returned, and the number of the signal that cancelled it, if one did.
    func cancelling<T: Sendable>(
        reporting report: (Int32) -> Void, _ operation: @escaping @Sendable () async -> T
    ) async -> (value: T, signal: Int32?) {
        await withTaskGroup(of: Step<T>.self) { group in
            group.addTask { .finished(await operation()) }
            group.addTask { .signalled(await self.received()) }
            var signal: Int32?
            while let step = await group.next() {
                switch step {
                case .finished(let value):
                    group.cancelAll()
                    return (value, signal)
                case .signalled(let number):
                    group.cancelAll()
                    if let number {
                        signal = number
                        report(number)
                    }
                }
            }
            preconditionFailure("The operation's task ended without its result.")
        }
    }

    /// Runs a command's `operation`, cancelled by the first SIGINT or SIGTERM, so that what it waits
    /// for (a token command with its children) is stopped with it, rather than left running when the
    /// signal ends the process.
    /// - Returns: what `operation` returned, or the shell's exit code for the signal (130 or 143).
    static func exitCode(_ operation: @escaping @Sendable () async throws -> Int32) async throws -> Int32 {
        let signals = TerminationSignals()
        defer { signals.stop() }
        let (result, signal) = await signals.cancellingCatching(reporting: { _ in }, operation)
        if let signal { return ExitCode.interrupted(by: signal) }
        return try result.get()
    }

    /// ``cancelling(reporting:_:)`` for an `operation` that throws: what it returned or threw.
    func cancellingCatching<T: Sendable>(
        reporting report: (Int32) -> Void, _ operation: @escaping @Sendable () async throws -> T
    ) async -> (value: Result<T, any Error>, signal: Int32?) {
        await cancelling(reporting: report) { () async -> Result<T, any Error> in
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
    }

    /// What ``finishing(stderr:interrupted:_:)`` came to: the operation's result, or the exit code
    /// of the signal that stopped it.
    enum Finish<T: Sendable>: Sendable {
        case finished(T)
        case stopped(exitCode: Int32)
    }

    /// Runs a command's `operation`, which leaves nothing behind when it stops part-way, cancelled by
    /// the first SIGINT or SIGTERM (said on `stderr` as it comes). When the signal stopped it (it threw
    /// `CancellationError`), `interrupted` says on `stderr` what was left, and the exit code is the
    /// shell's for the signal. Other errors are thrown.
    static func finishing<T: Sendable>(
        stderr: any TextOutput, interrupted: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> Finish<T> {
        let signals = TerminationSignals()
        defer { signals.stop() }
        let (outcome, signal) = await signals.cancellingCatching(reporting: { number in
            stderr.write("webcache: stopping on signal \(number) (a second one stops at once)\n")
        }, operation)
        do {
            return .finished(try outcome.get())
        } catch is CancellationError {
            stderr.write(interrupted + "\n")
            return .stopped(exitCode: ExitCode.interrupted(by: signal ?? SIGINT))
        }
    }

    /// Stops catching the signals: they end the process at once again.
    func stop() {
        TerminationSignals.catching.withLock { $0.removeAll { $0 === self } }
        continuation.finish()
    }

    /// Hands the first signal on; ends the process on any later one.
    private func receive(_ number: Int32) {
        if count.add(1, ordering: .relaxed).newValue == 1 {
            continuation.yield(number)
            continuation.finish()
        } else {
            TerminationSignals.end(by: number)
        }
    }

    // MARK: - The process's signal sources

    /// The instances catching the signals now.
    private static let catching = Mutex<[TerminationSignals]>([])

    /// The sources that watch the signals, made at the first use and kept for the rest of the
    /// process: libdispatch installs the signal handler its sources need only for the first source
    /// that watches a signal, so a source cancelled and made again would never fire.
    private static let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Makes the sources unless they are made.
    private static func watch() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            let queue = DispatchQueue(label: "webcache.signals")
            sources = numbers.map { number in
                // Ignored until the source is ready, rather than ending the process meanwhile.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { TerminationSignals.receive(number) }
                source.resume()
                return source
            }
        }
    }

    /// Hands signal `number` to the instances catching it; with none, ends the process as the
    /// signal's default action would.
    private static func receive(_ number: Int32) {
        let instances = catching.withLock { $0 }
        if instances.isEmpty { end(by: number) }
        for instance in instances { instance.receive(number) }
    }

    /// Ends the process at once by the default action of signal `number`.
    private static func end(by number: Int32) {
        signal(number, SIG_DFL)
        // Sent to this thread, where it must not be blocked (the queue's threads block signals).
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
    }
}

/// What ended first in ``TerminationSignals/cancelling(reporting:_:)``: the operation, or the wait
/// for a signal.
private enum Step<T: Sendable>: Sendable {
    case finished(T)
    case signalled(Int32?)
}
