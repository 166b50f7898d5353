import Synchronization

/// What this process's own commits changed, so that a caller keeping answers in memory can tell
/// which of them a change of the store's count leaves as they were
/// (``CacheStore/entriesMayHaveChanged(url:since:until:)``).
///
/// Every commit to a store in WAL mode adds one to the change counter in the header of the WAL index
/// (`iChange`, <https://www.sqlite.org/walformat.html>), whichever connection or process makes it.
/// The writer reads that counter once its write transaction has begun, and hands it over with what
/// the transaction changed just before it commits (``expect(counter:changed:)``): no other connection
/// can commit before the transaction ends, so its commit, if it makes one, sets the counter one
/// higher. SQLite's WAL hook, which runs only for a commit that wrote to the log, confirms it
/// (``confirm(framesInLog:)``), with the frames the log then holds; a transaction that wrote nothing
/// commits nothing, and the counter it read goes to the next commit, whoever makes it. A change of
/// the header (``LogIndexWatch``) that counted only confirmed commits, and ends with the last one's
/// frames, changed only what they name; any other change may have changed anything.
final class CommitLedger: Sendable {
    /// What a write of the writer changes that a kept answer is read from.
    enum Touched: Sendable {
        /// Nothing: hits, page records, staged chunks.
        case nothingServed
        /// The entries of this URL (its cache key), and nothing else.
        case url(String)
        /// The entries of these URLs, and nothing else.
        case urls([String])
        /// Anything.
        case anything
    }

    /// The header's change counter and the frames in the log, as a ``LogIndexWatch`` reads them.
    struct Mark {
        var counter: UInt32
        var framesInLog: UInt32
    }

    /// How many commits and changes of the count are remembered; older ones may have changed anything.
    /// A kept answer left behind by more is read again once, and kept anew.
    static let remembered = 1_024

    /// What a transaction changed: the hash values of the URLs whose entries it changed (a group
    /// commit's few dozen at most, looked through in order), or `nil` when it may have changed
    /// anything. Hash values, not the URLs: kept as strings for 4,096 to 8,192 commits, a cold run of
    /// 200,000 tiny URLs peaked at 66 MB instead of 57; and two URLs of one hash value only make an
    /// answer be read again.
    typealias Changed = [Int]?

    /// How many URLs one transaction may name; one that changes more (a large eviction or prune)
    /// may have changed anything, so that a commit's record stays small. A group commit of saves
    /// names at most ``CacheStore/groupLimit``.
    static let namedLimit = 128

    /// Adds what a write touched to what its transaction changed.
    static func add(_ touched: Touched, to changed: inout Changed) {
        switch touched {
        case .nothingServed: break
        case .url(let url): changed?.append(url.hashValue)
        case .urls(let urls):
            if let count = changed?.count, count + urls.count <= namedLimit {
                changed?.append(contentsOf: urls.lazy.map(\.hashValue))
            } else {
                changed = nil
            }
        case .anything: changed = nil
        }
    }

    private struct Commit {
        var framesInLog: UInt32
        var changed: Changed
    }

    /// A change of the count: this process's commits from `first` to `last` (by counter), or anything.
    private enum Change {
        case commits(first: UInt32, last: UInt32)
        case anything
    }

    private struct State {
        /// The writer's transaction under way: the counter its commit will set, and what it changed.
        var pending: (counter: UInt32, changed: Changed)?
        /// Confirmed commits of this process, by the counter each set.
        var commits: [UInt32: Commit] = [:]
        /// Each change of the count (``LogIndexWatch/count()``), by the count it led to.
        var changes: [UInt64: Change] = [:]
    }

    private let state = Mutex(State())

    /// The writer's transaction, begun with the header's counter at `counter`, is about to commit
    /// what `changed` says; `nil` for a header that could not be read, which leaves the commit unconfirmed.
    func expect(counter: UInt32?, changed: Changed) {
        state.withLock { $0.pending = counter.map { ($0 &+ 1, changed) } }
    }

    /// The writer's commit wrote to the log, which now holds `framesInLog` frames (the WAL hook).
    func confirm(framesInLog: Int32) {
        state.withLock { state in
            guard let pending = state.pending else { return }
            state.pending = nil
            state.commits[pending.counter] = Commit(
                framesInLog: UInt32(bitPattern: framesInLog), changed: pending.changed)
            if state.commits.count > 2 * Self.remembered {
                let newest = pending.counter
                state.commits = state.commits.filter { newest &- $0.key < UInt32(Self.remembered) }
            }
        }
    }

    /// The writer's transaction has ended, committed or not.
    func end() {
        state.withLock { $0.pending = nil }
    }

    /// Notes that the count became `count` when the header went from `old` to `new` (`nil` for a
    /// header being rewritten).
    func countChanged(to count: UInt64, from old: Mark?, to new: Mark?) {
        state.withLock { state in
            state.changes[count] = Self.change(from: old, to: new, commits: state.commits)
            if state.changes.count > 2 * Self.remembered {
                state.changes = state.changes.filter { count &- $0.key < UInt64(Self.remembered) }
            }
        }
    }

    /// Whether the entries of `url` may have changed between the counts `since` and `until`: `false`
    /// only when every change of the count between them was this process's commits that did not
    /// name it.
    func mayHaveChanged(url: String, since: UInt64, until: UInt64) -> Bool {
        guard since != until else { return false }
        guard since < until, until - since <= UInt64(Self.remembered) else { return true }
        let url = url.hashValue
        return state.withLock { state in
            for count in (since + 1)...until {
                guard case .commits(let first, let last)? = state.changes[count] else { return true }
                var counter = first
                while true {
                    guard let commit = state.commits[counter], let urls = commit.changed, !urls.contains(url) else {
                        return true
                    }
                    if counter == last { break }
                    counter &+= 1
                }
            }
            return false
        }
    }

    /// The change from `old` to `new`: this process's commits when each counter between them is one,
    /// the last one leaving the log as `new` says.
    private static func change(from old: Mark?, to new: Mark?, commits: [UInt32: Commit]) -> Change {
        guard let old, let new else { return .anything }
        let steps = new.counter &- old.counter
        guard steps > 0, steps <= UInt32(remembered), commits[new.counter]?.framesInLog == new.framesInLog else {
            return .anything
        }
        return .commits(first: old.counter &+ 1, last: new.counter)
    }
}
