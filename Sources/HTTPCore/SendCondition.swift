/// What must still hold when a request leaves: a transport asks just before it sends the request
/// (after any wait for a connection), and withdraws a request whose condition no longer holds.
///
/// A request prepared with a user's session cookie may wait behind others for a connection; if the
/// user signs out meanwhile, it must not leave with that cookie.
public struct SendCondition: Sendable, Hashable {
    private final class Check: Sendable {
        let reason: String
        let holds: @Sendable () -> Bool
        init(reason: String, holds: @escaping @Sendable () -> Bool) {
            self.reason = reason
            self.holds = holds
        }
    }

    private let check: Check

    /// A condition that `holds` tells; `reason` says, for messages, why a request is withdrawn when it
    /// does not hold ("the user signed out").
    public init(reason: String, holds: @escaping @Sendable () -> Bool) {
        check = Check(reason: reason, holds: holds)
    }

    /// Whether the request may still be sent. Called on the transport's thread: it must be quick and
    /// must not wait.
    public var holds: Bool { check.holds() }
    /// Why a request is withdrawn when the condition does not hold.
    public var reason: String { check.reason }

    public static func == (lhs: SendCondition, rhs: SendCondition) -> Bool { lhs.check === rhs.check }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(check)) }
}
