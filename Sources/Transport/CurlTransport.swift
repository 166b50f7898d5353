import FoundationEssentials
import HTTPCore
import Synchronization

/// The default ``HTTPTransport``: libcurl's multi interface driven by one event-loop thread.
///
/// Requests from any task are queued to the loop, which runs every transfer concurrently with
/// HTTP/2 multiplexing and HTTP/1.1 keep-alive, under per-host and total connection caps.
/// Bodies stream to the caller with bounded buffering: a transfer whose consumer lags is paused.
/// Redirects are not followed. TLS is verified unless ``Configuration-swift.struct/insecure`` is set.
///
/// ```swift
/// let transport = try CurlTransport()
/// let response = try await transport.send(HTTPRequest(url: url))
/// let data = try await response.body.collect()
/// ```
///
/// Responses stay usable after the transport itself is released: the loop ends when the
/// transport is gone and its last transfer is over.
public final class CurlTransport: HTTPTransport {
    /// The settings the transport was created with.
    public let configuration: Configuration
    /// The event loop, started by the first request: a transport that sends none never loads libcurl.
    private let startedLoop = Mutex<CurlEventLoop?>(nil)

    /// Creates a transport; its event loop starts with its first request.
    /// - Throws: ``TransportError`` with code ``TransportError/Code/invalidRequest`` when a
    ///   `resolve` or `connectTo` entry, or a cap, is malformed; the message names it.
    public init(configuration: Configuration = Configuration()) throws(TransportError) {
        try Self.validate(configuration)
        self.configuration = configuration
    }

    deinit {
        startedLoop.withLock { $0?.ownerReleased() }
    }

    /// Queues the request on the event loop and returns when the response head has arrived.
    /// - Throws: ``TransportError``; code ``TransportError/Code/unavailable`` when libcurl cannot be
    ///   loaded.
    public func send(_ request: HTTPRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        let loop = try startedLoop.withLock { started throws(TransportError) in
            if let started { return started }
            let loop = try CurlEventLoop(configuration: configuration)
            started = loop
            return loop
        }
        let id = loop.makeTransferID()
        let promise = HeadPromise()
        let control = CurlFlowControl(loop: loop, id: id)
        let channel = BodyChannel(highWater: configuration.bodyBufferBytes, control: control)
        let spec = CurlTransferSpec(id: id, request: request, head: promise, channel: channel)
        return try await withTaskCancellationHandler {
            loop.submit(.start(spec))
            // A cancellation that came before the start was queued is honoured here.
            if Task.isCancelled { loop.submit(.cancel(id)) }
            return try await promise.value()
        } onCancel: {
            loop.submit(.cancel(id))
        }
    }

    // MARK: - Validation

    private static func validate(_ configuration: Configuration) throws(TransportError) {
        for entry in configuration.resolve {
            let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count >= 3, !parts[0].isEmpty, UInt16(parts[1]) != nil, !parts[2].isEmpty else {
                throw TransportError(
                    code: .invalidRequest,
                    message: "The resolve entry '\(entry)' is malformed; expected HOST:PORT:ADDRESS.")
            }
        }
        for entry in configuration.connectTo {
            let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[1].isEmpty || UInt16(parts[1]) != nil,
                parts[3].isEmpty || UInt16(parts[3]) != nil
            else {
                throw TransportError(
                    code: .invalidRequest,
                    message: "The connect-to entry '\(entry)' is malformed; expected HOST:PORT:HOST2:PORT2.")
            }
        }
        guard configuration.maxConnectionsPerHost > 0, configuration.maxConnections > 0,
            configuration.bodyBufferBytes > 0, configuration.maxHeaderBytes > 0
        else {
            throw TransportError(
                code: .invalidRequest, message: "Connection caps, header and buffer limits must be positive.")
        }
    }
}

/// Resumes or cancels one transfer of a loop from the consumer's side.
struct CurlFlowControl: BodyFlowControl {
    let loop: CurlEventLoop
    let id: Int

    func resumeProducer() { loop.submit(.resumeReceiving(id)) }
    func cancelProducer() { loop.submit(.cancel(id)) }
}
