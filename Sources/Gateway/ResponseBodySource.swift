/// What the HTTP server pulls a streamed response body from, in the connection's callback, as the
/// socket takes it: the loader's bytes through an ``Exchange``, or a stored body copied from the
/// store (``StoredBodyStream``). A read never blocks: when nothing is there yet it answers
/// ``Exchange/ReadResult/later`` and runs `wake` once there is.
protocol ResponseBodySource: AnyObject {
    /// Copies the next body bytes into `buffer` (the server's, of `count` bytes).
    func read(into buffer: UnsafeMutableRawPointer, count: Int, orWhenReadable wake: @escaping @Sendable () -> Void)
        -> Exchange.ReadResult
    /// The server is done with the body: it was sent, or the client left.
    func bodyEnded()
}

extension Exchange: ResponseBodySource {
    func bodyEnded() {
        consumerFinished()
    }
}

extension StoredBodyStream: ResponseBodySource {
    func bodyEnded() {}
}

/// A ``ResponseBodySource`` held by the server as its callbacks' context pointer, with what wakes
/// its connection when a read has to wait.
final class ResponseBodyContext {
    let source: any ResponseBodySource
    /// Suspends and resumes the connection.
    let suspensions: ConnectionSuspensions
    /// The key of the connection the body goes to (``ConnectionSuspensions/key(of:)``).
    let key: UInt
    /// Resumes the connection; given to every read.
    let wake: @Sendable () -> Void

    init(_ source: any ResponseBodySource, connection: OpaquePointer, suspensions: ConnectionSuspensions) {
        self.source = source
        self.suspensions = suspensions
        let key = ConnectionSuspensions.key(of: connection)
        self.key = key
        wake = { suspensions.resume(key) }
    }
}
