import CCurl
import FoundationEssentials
import HTTPCore
import Synchronization

/// What a caller asks of the loop.
enum CurlCommand: Sendable {
    case start(CurlTransferSpec)
    case cancel(Int)
    /// The consumer took the response body down: receive again.
    case resumeReceiving(Int)
    /// The request body stream has bytes (or its end) again: send again.
    case resumeSending(Int)
}

/// Everything the loop needs to start a transfer; made by the calling task.
struct CurlTransferSpec: Sendable {
    var id: Int
    var request: HTTPRequest
    var head: HeadPromise
    var channel: BodyChannel
}

/// One thread running libcurl's multi interface for one ``CurlTransport``.
///
/// Callers only append commands to a locked inbox and wake the thread with `curl_multi_wakeup`.
/// The thread owns every easy handle and everything libcurl calls back into.
///
/// `@unchecked Sendable` because of `multi`: off the loop thread it is only passed to
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread, and to
/// `curl_multi_cleanup` in `deinit`, which runs after the loop thread has ended (the thread holds
/// a strong reference until then). Every other member is immutable or behind a `Mutex`.
final class CurlEventLoop: @unchecked Sendable {
    private struct Inbox {
        var commands: [CurlCommand] = []
        var ownerGone = false
    }

    /// Why libcurl cannot be used in this process, or `nil` once it is loaded and initialised.
    private static let unavailability: String? = {
        if let failure = ccurl_load() { return String(cString: failure) }
        return ccurl_global_init(ccurl_global_all()) == CURLE_OK ? nil : "libcurl could not be initialised."
    }()

    let configuration: CurlTransport.Configuration
    private let resolvedConnections: ResolvedConnections
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private let nextID = Atomic<Int>(0)

    /// Loads libcurl when no loop did before, and starts the loop's thread.
    /// - Throws: ``TransportError/Code/unavailable`` when libcurl cannot be loaded or initialised.
    init(configuration: CurlTransport.Configuration) throws(TransportError) {
        if let reason = Self.unavailability { throw TransportError(code: .unavailable, message: reason) }
        guard let multi = ccurl_multi_init() else { fatalError("curl_multi_init failed: out of memory.") }
        self.configuration = configuration
        self.resolvedConnections = ResolvedConnections(
            configuration: configuration, environment: ProcessInfo.processInfo.environment)
        self.multi = multi
        let multiplex = configuration.httpVersion == .http2OverTLS ? ccurl_pipe_multiplex() : 0
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, multiplex)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
        POSIXThread.start(name: "CurlTransport") { [self] in run() }
    }

    deinit {
        ccurl_multi_cleanup(multi)
    }

    // MARK: - Called from any thread

    func makeTransferID() -> Int {
        nextID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Queues `command` for the loop thread, waking it when the inbox was empty: a non-empty inbox
    /// has not been taken since the command that made it non-empty woke the thread, so that wakeup
    /// is still pending (libcurl keeps it until `curl_multi_poll` returns) and brings this one along.
    /// One wakeup per round instead of one per command saves a system call and a loop round for
    /// every request of a busy run.
    func submit(_ command: CurlCommand) {
        let wakes = inbox.withLock { inbox in
            inbox.commands.append(command)
            return inbox.commands.count == 1
        }
        if wakes { ccurl_multi_wakeup(multi) }
    }

    /// The transport is gone: end the thread once the running transfers are over.
    func ownerReleased() {
        inbox.withLock { $0.ownerGone = true }
        ccurl_multi_wakeup(multi)
    }

    // MARK: - Loop thread

    private func run() {
        // Room for more handles than transfers may run at once: a transfer gives its handle back when
        // its caller lets go of it, after reading the body, while the next transfers run (a preload
        // keeps up to three times its connections unfinished). With room for one a connection, a
        // quarter of a run's handles were made and freed again. Idle handles are never more than
        // were in use at one time.
        let handles = CurlHandles(limit: 4 * configuration.maxConnections)
        var transfers: [Int: CurlTransfer] = [:]
        var ids: [UnsafeMutableRawPointer: Int] = [:]
        while true {
            let (commands, ownerGone) = inbox.withLock { inbox in
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return (inbox.commands, inbox.ownerGone)
            }
            for command in commands {
                switch command {
                case .start(let spec):
                    // The waking closure holds the id alone, not a copy of the whole spec.
                    let id = spec.id
                    let transfer = CurlTransfer(
                        spec: spec, configuration: configuration, resolvedConnections: resolvedConnections,
                        handles: handles, wakeSender: { [self] in submit(.resumeSending(id)) })
                    if let failure = transfer.setUp() {
                        transfer.complete(with: .failure(failure))
                        continue
                    }
                    transfers[spec.id] = transfer
                    ids[transfer.easy] = spec.id
                    transfer.requestTime = Date()
                    ccurl_multi_add_handle(multi, transfer.easy)
                case .cancel(let id):
                    guard let transfer = transfers.removeValue(forKey: id) else { continue }
                    ids[transfer.easy] = nil
                    ccurl_multi_remove_handle(multi, transfer.easy)
                    transfer.complete(with: .failure(CancellationError()))
                case .resumeReceiving(let id):
                    transfers[id]?.resume(sending: false)
                case .resumeSending(let id):
                    transfers[id]?.resume(sending: true)
                }
            }
            if ownerGone && transfers.isEmpty { return }

            var running: Int32 = 0
            ccurl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = ccurl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let id = ids.removeValue(forKey: easy), let transfer = transfers.removeValue(forKey: id)
                else { continue }
                let result = ccurl_msg_result(message)
                ccurl_multi_remove_handle(multi, easy)
                if transfer.retriesOnFreshConnection(after: result) {
                    transfers[id] = transfer
                    ids[easy] = id
                    ccurl_multi_add_handle(multi, easy)
                    continue
                }
                transfer.finish(code: result)
            }
            for transfer in transfers.values { transfer.flushHead() }
            ccurl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }
}
