import FoundationEssentials
import HTTPCore
import WebCache

/// The gateway's fresh answers kept in memory (``AnswerMemory``), head and body, as Varnish keeps
/// its objects: a hit on one reads nothing from the store but its change count
/// (``CacheStore/changeCount()``), and its body goes to the client from this memory without a copy.
///
/// Only what the store would answer the same way to any plain request is kept: a fresh `200`
/// whose response has no `Vary` field and is stored as the origin sent it, for a `GET` without a
/// body, conditions, ranges, cache directives, credentials or a `Via` (``isPlain(_:)``); anything
/// else goes to the store each time. Its `Age` is computed for each request, and the response made
/// for one age is kept with the answer for the hits of the same second. The bodies' bytes were
/// checked when they were read from the store, as every read checks them; a large body is kept in
/// a file that the server sends with `sendfile` (``HeldBody``).
final class HotAnswers: Sendable {
    /// One kept answer.
    final class Kept: RememberedAnswer {
        /// The stored answer, for recording its hits.
        let answer: StoredAnswer
        /// Its freshness, worked out when it was kept.
        let freshness: StoredAnswer.Freshness
        /// The head the client gets, but for its `Age`.
        let head: ProxyHandler.ClientHead
        /// What that head takes of a connection's buffer (``ConnectionBuffer/responseBytes(_:)``).
        let headBytes: Int
        /// The body's bytes.
        let body: HeldBody
        /// The store's change count before the answer was read.
        let changeCount: UInt64
        /// The URL the answer is stored under, as the access log names it.
        let url: String
        /// The URL's key in the store, which its saves name (``CacheStore/entriesMayHaveChanged(url:since:until:)``).
        let storeKey: String

        var bodySize: Int { body.count }

        init(answer: StoredAnswer, freshness: StoredAnswer.Freshness, head: ProxyHandler.ClientHead, body: HeldBody,
             changeCount: UInt64) {
            self.answer = answer
            self.freshness = freshness
            self.head = head
            headBytes = ConnectionBuffer.responseBytes(head.headers)
            self.body = body
            self.changeCount = changeCount
            url = answer.url.absoluteString
            storeKey = answer.url.cacheKey.absoluteString
        }
    }

    /// A kept answer ready to send at `age` (whole seconds): its head and body as one response of
    /// the HTTP server, which any number of connections may send at once. The head differs from one
    /// second to the next only in its `Age`, so a hit within the same second sends the same one.
    struct Ready: Sendable {
        var kept: Kept
        var age: Int
        /// The response made for this `age`, when one was (``prepared(_:age:for:kept:)``).
        var response: PreparedResponse?
    }

    /// The last response made for a kept answer, and the age it gives.
    private struct Made: Sendable {
        let age: Int
        let response: PreparedResponse
    }

    private let memory: AnswerMemory<Kept, Made>
    /// Where large bodies are kept, in files without a name (``HeldBody``): the store's folder.
    let bodyFiles: BodyFiles

    /// What an answer counts besides its body: its head and bookkeeping, about a kilobyte.
    static var slotOverhead: Int { AnswerMemory<Kept, Made>.slotOverhead }

    /// Keeps at most `capacity` bytes; a body of more than an eighth of it is not kept. Bodies of
    /// more than ``HeldBody/fileThreshold`` bytes go to files without a name in `fileFolder`.
    init(capacity: Int, fileFolder: String) {
        memory = AnswerMemory(capacity: capacity)
        bodyFiles = BodyFiles(folder: fileFolder)
    }

    /// The request fields that can change what the store answers to a `GET`, besides its URL.
    private static let decidingFields = [
        "Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range",
        "Cache-Control", "Pragma", "Authorization", "Via",
    ]

    /// Whether `request` is a `GET` whose answer from the store depends on its target alone.
    static func isPlain(_ request: ConnectionRequest) -> Bool {
        request.method == .get && request.bodyStream == nil
            && !decidingFields.contains(where: { request.headers.contains($0) })
    }

    /// The kept answer for `target` at its age at `now`, with the response made for that age if
    /// there is one, when it is what the store holds at its change count `changeCount` and is fresh
    /// at `now`; one that no longer is goes. One read at an earlier count still is when
    /// `mayHaveChanged` says no of its store key and that count
    /// (``CacheStore/entriesMayHaveChanged(url:since:until:)``); by default any change of the count ends it.
    func answer(
        for target: String, changeCount: UInt64, now: Date,
        mayHaveChanged: (_ storeKey: String, _ since: UInt64) -> Bool = { _, _ in true }
    ) -> Ready? {
        let found = memory.find(target, changeCount: changeCount, now: now) { kept, since in
            !mayHaveChanged(kept.storeKey, since)
        }
        guard let found else { return nil }
        let seconds = Int(max(0, found.age))
        let response = found.note.flatMap { $0.age == seconds ? $0.response : nil }
        return Ready(kept: found.answer, age: seconds, response: response)
    }

    /// Notes `response`, made for `kept` at `age`, for the next hits on `target` of the same age,
    /// unless `target` is no longer answered with `kept`.
    func prepared(_ response: PreparedResponse, age: Int, for target: String, kept: Kept) {
        memory.note(Made(age: age, response: response), for: target, answer: kept)
    }

    /// What is kept for `target`, whatever the store's change count and the time.
    func kept(for target: String) -> Kept? {
        memory.answer(for: target)
    }

    /// Whether a body of `size` bytes may be kept.
    func admits(size: Int) -> Bool {
        memory.admits(size: size)
    }

    /// Keeps `kept` for `target`, in place of what was kept for it, letting the least recently served
    /// answers go while the bodies exceed the capacity.
    func keep(_ kept: Kept, for target: String) {
        memory.keep(kept, for: target)
    }

    /// The bytes kept now, as the capacity counts them.
    var bytes: Int { memory.bytes }
}
