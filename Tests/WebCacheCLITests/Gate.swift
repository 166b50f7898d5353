import Foundation

/// Holds the test origin's `/held.html` back: while the gate is closed, a request for it waits until
/// it opens (a minute at most), so that a run that needs it cannot end before the test lets it.
final class Gate: @unchecked Sendable {  // `isOpen` is only touched under `condition`.
    private let condition = NSCondition()
    private var isOpen: Bool

    /// A gate, open unless `open` is `false`.
    init(open: Bool = true) {
        isOpen = open
    }

    /// Lets every waiting and later request through.
    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Holds later requests back until ``open()``.
    func close() {
        condition.lock()
        isOpen = false
        condition.unlock()
    }

    /// `response`, once the gate is open or a minute has passed.
    func passing<Response>(_ response: Response) -> Response {
        let deadline = Date(timeIntervalSinceNow: 60)
        condition.lock()
        while !isOpen, condition.wait(until: deadline) {}
        condition.unlock()
        return response
    }
}
