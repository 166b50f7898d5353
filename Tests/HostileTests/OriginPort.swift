import Synchronization

/// The origin's port, known only once it has started, for a handler made before.
final class OriginPort: Sendable {
    private let port = Mutex<UInt16>(0)
    var value: UInt16 { port.withLock { $0 } }
    func set(_ value: UInt16) { port.withLock { $0 = value } }
}
