/// What the HTTP server pulls a streamed response body from, on the connection's thread, as the
/// socket takes it: the loader's bytes through an ``Exchange``, or a stored body copied from the
/// store (``StoredBodyStream``).
protocol ResponseBodySource: AnyObject {
    /// Copies the next body bytes into `buffer` (the server's, of `count` bytes).
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Exchange.ReadResult
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

/// A ``ResponseBodySource`` held by the server as its callbacks' context pointer.
final class ResponseBodyContext {
    let source: any ResponseBodySource

    init(_ source: any ResponseBodySource) {
        self.source = source
    }
}
