import CMicroHTTPD

/// A response of the HTTP server, head and body complete, that any number of connections may send,
/// on any thread: the server counts who holds it, and this object holds it until it goes.
final class PreparedResponse: Sendable {
    /// The response's address, as a number (a pointer is not `Sendable`).
    private let address: UInt

    /// Holds `response`, which must not be changed from now on.
    init(_ response: OpaquePointer) {
        address = UInt(bitPattern: Int(bitPattern: response))
    }

    /// The response, to queue; valid while this object is held.
    var response: OpaquePointer { OpaquePointer(bitPattern: address)! }

    deinit {
        cmhd_destroy_response(OpaquePointer(bitPattern: address))
    }
}
