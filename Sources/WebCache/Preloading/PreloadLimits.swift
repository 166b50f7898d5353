import FoundationEssentials

/// How many fetches the preload engine hands its transport at once, in all and per host.
struct PreloadLimits: Sendable {
    /// Transfers in flight at once.
    var concurrency: Int
    /// Transfers in flight to one host (host name and port) at once.
    var perHost: Int
    /// Whether the transport holds transfers to these limits itself (a ``CurlTransport`` whose
    /// connection caps are no larger). It then gets twice as many fetches: the second half waits
    /// inside it, and starts on its thread the moment a connection is free; a round trip through
    /// the scheduling loop cost about a millisecond each time.
    var handsAhead = false
    /// Whether the transport may multiplex `https` transfers over HTTP/2. Its connection caps do not
    /// hold streams: every fetch handed to such a host runs at once. So while any such fetch waits
    /// or runs, none is handed ahead at all (fetches handed ahead elsewhere would count against the
    /// limit while the stream could not start).
    var multiplexesTLS = false

    /// Whether a transfer of `url` may run as a stream of a connection it shares.
    func mayShareConnection(_ url: URL) -> Bool {
        multiplexesTLS && url.scheme?.lowercased() == "https"
    }

    /// Whether a fetch may start now, with `running` fetches handed out in all and `runningOnHost`
    /// to its host, and `streams` telling whether any fetch that may run as a stream waits or runs.
    func admits(running: Int, runningOnHost: Int, streams: Bool) -> Bool {
        let factor = handsAhead && !streams ? 2 : 1
        return running < factor * concurrency && runningOnHost < factor * perHost
    }
}
