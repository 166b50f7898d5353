import Synchronization

/// Where the gateway keeps large bodies in files (``HeldBody``), and how many it may hold at once:
/// each holds a descriptor, and so does each response sending from one, beside the connections'
/// sockets.
final class BodyFiles: Sendable {
    /// The folder the files are made in; they have no name, so nothing appears there.
    let folder: String
    /// The most files held at once. The default, 128, with the default 256 connections each sending
    /// from a descriptor of its own, leaves room under the 1,024 descriptors most systems give a
    /// process unless told otherwise.
    let limit: Int
    private let held = Atomic<Int>(0)

    init(folder: String, limit: Int = 128) {
        self.folder = folder
        self.limit = limit
    }

    /// The files held now.
    var count: Int { held.load(ordering: .relaxed) }

    /// Counts one more file and returns `true`, unless `limit` are held.
    func reserve() -> Bool {
        var current = held.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = held.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Counts one file fewer: one that ``reserve()`` counted was closed, or never made.
    func release() {
        held.subtract(1, ordering: .relaxed)
    }
}
