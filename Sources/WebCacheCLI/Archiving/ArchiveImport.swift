import Archive
import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore
import WebCache

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Imports WARC, WACZ and HAR files into a store through the store's own write path: each entry's
/// body is streamed in with a ``BodyWriter`` and saved with ``CacheStore/save(_:body:pageEdges:)``,
/// several saves at once so that they share transactions (group commit: one transaction per batch).
/// An entry is written whole or not at all, so an import stopped at any point leaves the store sound.
///
/// For the same partition, URL and Vary key, the response received last wins, by the rule of merge
/// (``CacheStore/saveUnlessOlder(_:body:)``): a response older than the store's is left out and counted.
/// A 206 response is saved as a part of a partial entry by the store's rule for parts
/// (``CacheStore/savePartUnlessOlder(_:first:completeLength:completeHeaders:body:)``), in the archive's order.
///
/// A response the loader would not store (RFC 9111 §3: `no-store`, a request's `Authorization` in the
/// guest partition without a response that allows it to be shared, …) is skipped and counted by reason.
///
/// A WARC block that holds interim (1xx) responses before the final one is imported as its final one.
/// A 304 freshens the stored responses it validates as the loader applies one it receives (RFC 9111
/// §4.3.4), unless they were stored from a later response; one that validates none is skipped. An
/// interim response alone, which a cache does not store (``HTTPCachePolicy/storability(status:)``),
/// is skipped and counted, as are records that are not HTTP responses.
///
/// A damaged record is reported as `FILE@OFFSET: reason` and skipped, and so is a 206 whose bytes have
/// no known place (no single `Content-Range` of a known complete length); a file that cannot be read
/// or is not an archive (missing, a folder, empty, of another format) as `FILE: reason`. The import
/// goes on with the next record or file.
///
/// Cancelling the task stops an import: nothing more is read or saved, the saves under way end, and
/// the summary holds what was committed.
final class ArchiveImport {
    /// What an import did.
    struct Summary: Sendable, Encodable {
        var imported = 0
        var fromRevisits = 0
        /// 206 responses saved as parts of partial entries (not among `imported`).
        var parts = 0
        /// Stored entries a 304 of the archive freshened (its records not among `imported`).
        var refreshed = 0
        /// Responses and parts left out because the store holds a response of their identity received
        /// at the same time or later (``CacheStore/saveUnlessOlder(_:body:)``).
        var older = 0
        var skipped = 0
        /// The responses among `skipped` that the loader's rule for what it receives refuses, by reason.
        var notStorable: [String: Int] = [:]
        var damaged = 0
        /// Sound records the store could not take: a full disk, a store that cannot be written.
        var notStored = 0
        /// Files (or WACZ members) of which nothing could be read: missing, unreadable, not archives.
        var filesNotImported = 0
        var bodyBytes: Int64 = 0
        /// Whether a signal stopped the import before its end.
        var interrupted = false
    }

    let store: CacheStore
    /// Receives one line per damaged record or entry.
    let report: (String) -> Void
    private(set) var summary = Summary()
    /// Saves in flight at once; they share the writer's transactions.
    static let batchSize = 32

    /// A request record waiting for its response (or the other way round).
    private struct RequestInfo {
        var method: String
        var headers: HTTPHeaders
        var date: Date?
    }

    /// A response whose request record may still follow.
    private struct PendingResponse {
        var exchange: ArchivedExchange.Exchange
        var body: BodyWriter
        var recordID: String
        var concurrentTo: [String]
        var digestLabel: String?
        var place: String
        var revisit: Bool
    }

    /// What one save came to.
    private enum SaveOutcome: Sendable {
        case saved(bodyID: Int64?, digestLabel: String?, bytes: Int64, revisit: Bool)
        case savedPart(bytes: Int64)
        /// A 304 applied to `count` stored entries; none when it validates no stored response.
        case freshened(count: Int)
        /// Left out: the store holds a response of its identity received at the same time or later.
        case older
        /// The record is damaged, or holds what no entry can be made of.
        case failed(String)
        /// The store could not take a sound record (a full disk, a store that cannot be written).
        case notStored(String)
    }

    /// The outcome of a save of the record at `place` that threw `error`: the store's failures
    /// (``notStored``) told apart from the record's.
    private static func failure(at place: String, _ error: any Error) -> SaveOutcome {
        let message = "\(place): \(reason(error))"
        return isStoreFailure(error) ? .notStored(message) : .failed(message)
    }

    /// Whether `error` is the store's failure to take a record (a full disk, a store that cannot be
    /// written), not something wrong with the record.
    private static func isStoreFailure(_ error: any Error) -> Bool {
        guard let error = error as? CacheStore.Error else { return false }
        return error.code != .invalidEntry && error.code != .damagedBody
    }

    private var requests: [String: RequestInfo] = [:]
    /// Payload digests other than SHA-256 (SHA-1, from wget) → the body saved with them, for revisits.
    private var bodiesByDigest: [String: Int64] = [:]
    private var pending: PendingResponse?

    init(store: CacheStore, report: @escaping (String) -> Void) {
        self.store = store
        self.report = report
    }

    /// Imports the file at `path` by its name: `.har` as HAR, `.wacz` or `.zip` as WACZ, anything else
    /// as WARC. A path that is missing, a folder or unreadable is reported, and nothing imported from it.
    func importFile(_ path: String) async {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let reason = errno == ENOENT ? "does not exist" : "cannot be read: \(String(cString: strerror(errno)))"
            return noteFileNotImported("\(path): The file \(reason).")
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            return noteFileNotImported("\(path): It is a folder, not an archive file.")
        }
        let lower = path.lowercased()
        if lower.hasSuffix(".har") {
            await importHAR(path: path, name: path)
        } else if lower.hasSuffix(".wacz") || lower.hasSuffix(".zip") {
            await importWACZ(path: path, name: path)
        } else {
            do {
                await importWARC(from: try FileByteSource(path: path), name: path)
            } catch {
                noteFileNotImported("\(path): \(Self.reason(error))")
            }
        }
    }

    // MARK: - WARC

    /// Imports the records of one WARC file (compressed or not) read from `source`; `name` is the file
    /// name used in messages. A file without any record is reported as not a WARC file.
    func importWARC(from source: any ByteSource, name: String) async {
        let reader: WARCReader
        do {
            reader = try await WARCReader(source: source)
        } catch {
            noteFileNotImported(error, in: name)
            return
        }
        let problemsBefore = summary.damaged + summary.filesNotImported
        var records = 0
        await withTaskGroup(of: SaveOutcome.self) { group in
            var inFlight = 0
            while !Task.isCancelled {
                let record: WARCReader.Record
                do {
                    guard let next = try await reader.nextRecord() else { break }
                    record = next
                    records += 1
                } catch let error as ArchiveError where error.offset == nil && records == 0 {
                    // The file does not start with a record.
                    noteFileNotImported(error.message(file: name))
                    break
                } catch let error as ArchiveError {
                    await flushPending(into: &group, inFlight: &inFlight)
                    noteDamage(error.message(file: name))
                    continue
                } catch {
                    noteDamage("\(name): \(Self.reason(error))")
                    break
                }
                let place = "\(name)@\(record.offset)"
                if record.header.type != "request" {
                    await flushPending(into: &group, inFlight: &inFlight)
                }
                do {
                    switch record.header.type {
                    case "response":
                        try await readResponse(record, reader: reader, place: place, group: &group, inFlight: &inFlight)
                    case "request":
                        try await readRequest(record, reader: reader, place: place)
                        if var item = pending, pairs(item, with: record.header),
                            let request = requests[record.header.recordID]
                        {
                            apply(request, to: &item.exchange)
                            pending = item
                            await flushPending(into: &group, inFlight: &inFlight)
                        }
                    case "revisit":
                        while let outcome = await group.next() { note(outcome) }
                        inFlight = 0
                        try await readRevisit(record, reader: reader, place: place, group: &group, inFlight: &inFlight)
                    default:
                        summary.skipped += 1
                    }
                } catch {
                    // Damage of the record, or the store's failure to stage its body.
                    note(Self.failure(at: place, error))
                }
            }
            await flushPending(into: &group, inFlight: &inFlight)
            for await outcome in group { note(outcome) }
        }
        requests = [:]
        if records == 0, summary.damaged + summary.filesNotImported == problemsBefore {
            noteFileNotImported("\(name): The file holds no WARC record, so it is not a WARC file.")
        }
    }

    /// Imports every WARC file a WACZ (zip) file holds, in the order of its directory.
    func importWACZ(path: String, name: String) async {
        let archive: ZipArchive
        do {
            archive = try ZipArchive(path: path)
        } catch {
            noteFileNotImported(error, in: name)
            return
        }
        let warcs = archive.members.filter { $0.name.hasSuffix(".warc") || $0.name.hasSuffix(".warc.gz") }
        if warcs.isEmpty {
            noteFileNotImported("\(name): The zip file holds no .warc or .warc.gz file, so it is not a WACZ file.")
        }
        for member in warcs where !Task.isCancelled {
            do {
                await importWARC(from: try await archive.contents(of: member), name: "\(name):\(member.name)")
            } catch {
                noteFileNotImported(error, in: name)
            }
        }
    }

    private func readRequest(_ record: WARCReader.Record, reader: WARCReader, place: String) async throws {
        var block = Data()
        while let piece = try await reader.readBlock() {
            if block.count < 1 << 20 { block.append(piece) }
        }
        guard let (head, _) = try HTTPMessageHead.parse(block), let method = head.method else {
            summary.skipped += 1
            return
        }
        if requests.count > 10_000 { requests = [:] }
        requests[record.header.recordID] = RequestInfo(method: method, headers: head.headers, date: record.header.date)
    }

    /// Whether a request record (`header`) belongs to the pending response.
    private func pairs(_ pending: PendingResponse, with header: WARCHeader) -> Bool {
        header.concurrentTo.contains(pending.recordID) || pending.concurrentTo.contains(header.recordID)
    }

    private func readResponse(
        _ record: WARCReader.Record, reader: WARCReader, place: String, group: inout TaskGroup<SaveOutcome>,
        inFlight: inout Int
    ) async throws {
        let header = record.header
        guard let target = header.targetURI, target.hasPrefix("http:") || target.hasPrefix("https:"),
            header.fields["Content-Type"].map({ $0.lowercased().hasPrefix("application/http") }) ?? true
        else {
            summary.skipped += 1
            return
        }
        var body = store.makeBodyWriter()
        let head: HTTPMessageHead
        do {
            head = try await streamPayload(of: record, reader: reader, into: &body)
        } catch {
            try? await body.discard()
            throw error
        }
        await saveOrHold(
            PendingResponse(
                exchange: exchange(for: record, head: head), body: body, recordID: header.recordID,
                concurrentTo: header.concurrentTo, digestLabel: header.fields["WARC-Payload-Digest"], place: place,
                revisit: false),
            into: &group, inFlight: &inFlight)
    }

    /// Saves a response whose request record came before it; holds one whose request may follow.
    private func saveOrHold(
        _ item: PendingResponse, into group: inout TaskGroup<SaveOutcome>, inFlight: inout Int
    ) async {
        var item = item
        guard let request = item.concurrentTo.lazy.compactMap({ self.requests[$0] }).first else {
            pending = item
            return
        }
        apply(request, to: &item.exchange)
        await save(item, into: &group, inFlight: &inFlight)
    }

    private func readRevisit(
        _ record: WARCReader.Record, reader: WARCReader, place: String, group: inout TaskGroup<SaveOutcome>,
        inFlight: inout Int
    ) async throws {
        let header = record.header
        guard header.fields["WARC-Profile"]?.hasSuffix("identical-payload-digest") == true,
            let target = header.targetURI, target.hasPrefix("http:") || target.hasPrefix("https:")
        else {
            summary.skipped += 1
            while try await reader.readBlock() != nil {}
            return
        }
        var block = Data()
        while let piece = try await reader.readBlock() {
            if block.count < 1 << 20 { block.append(piece) }
        }
        guard let (head, _) = try Self.finalResponseHead(in: block, ended: true) else {
            throw ArchiveError(reason: "The revisit record holds no complete HTTP response head.")
        }
        let label = header.fields["WARC-Payload-Digest"]
        var bodyID = try label.flatMap(WARCDigest.sha256(fromLabel:)).flatMap { try store.bodyID(forHash: $0) }
        if bodyID == nil, let label { bodyID = bodiesByDigest[label] }
        let partition = header.fields[ArchivedExchange.partitionField] ?? "guest"
        let refersTo = header.fields["WARC-Refers-To-Target-URI"]
        if let refersTo { InternationalNames.prepare(forURL: refersTo) }
        if bodyID == nil, let label, let refersTo, let url = URL(string: refersTo), url.isHTTP {
            bodyID = try storedBody(of: url, partition: partition, digestLabel: label)
        }
        guard let bodyID else {
            let byTarget = refersTo.map {
                ": the store holds no complete response of '\(MessageText.excerpt($0, limit: 100))' in the partition "
                    + "\(partition) with that digest"
            }
            throw ArchiveError(
                reason: "The revisit record refers to content (\(label ?? "no payload digest")) that neither this "
                    + "archive before it nor the store holds\(byTarget ?? "").")
        }
        var body = store.makeBodyWriter()
        var chunks = store.bodyChunks(bodyID: bodyID)
        while let chunk = try chunks.next() { try await body.write(chunk) }
        await saveOrHold(
            PendingResponse(
                exchange: exchange(for: record, head: head), body: body, recordID: header.recordID,
                concurrentTo: header.concurrentTo, digestLabel: nil, place: place, revisit: true),
            into: &group, inFlight: &inFlight)
    }

    /// The body of a complete 2xx response the store holds for `url` in `partition` whose content has
    /// the payload digest `label`, for a revisit record that refers to `url`. A SHA-256 digest is the
    /// store's content address, looked up before; another algorithm's (SHA-1, as wget writes it) is
    /// computed here over each candidate body. A partial entry (whose body is empty) is never taken.
    private func storedBody(of url: URL, partition: String, digestLabel label: String) throws -> Int64? {
        guard let (algorithm, digest) = WARCDigest.digest(fromLabel: label), algorithm != .sha256 else { return nil }
        let candidates = try store.variants(partition: partition, method: .get, url: url.cacheKey.absoluteString)
        for entry in candidates where !entry.isPartial && (200..<300).contains(entry.status) {
            guard let bodyID = entry.bodyID else { continue }
            var chunks = store.bodyChunks(bodyID: bodyID)
            if try WARCDigest.digest(algorithm, of: { try chunks.next() }) == digest { return bodyID }
        }
        return nil
    }

    /// Streams a response record's payload into `body` (chunked coding removed) and returns its head;
    /// checks a SHA-256 block digest.
    private func streamPayload(
        of record: WARCReader.Record, reader: WARCReader, into body: inout BodyWriter
    ) async throws -> HTTPMessageHead {
        let expected = record.header.fields["WARC-Block-Digest"].flatMap(WARCDigest.sha256(fromLabel:))
        var hasher = expected.map { _ in SHA256() }
        var buffer = Data()
        var head: HTTPMessageHead?
        var dechunker: ChunkedDecoder?
        while let piece = try await reader.readBlock() {
            hasher?.update(piece)
            var payload = piece
            if head == nil {
                buffer.append(piece)
                guard let (parsed, content) = try Self.finalResponseHead(in: buffer, ended: false) else {
                    guard buffer.count < 1 << 20 else {
                        throw ArchiveError(reason: "The response's HTTP head is longer than 1 MiB.")
                    }
                    continue
                }
                guard parsed.status != nil else {
                    throw ArchiveError(reason: "The response record does not hold an HTTP response.")
                }
                head = parsed
                if parsed.headers.listValues(for: "Transfer-Encoding").last?.lowercased() == "chunked" {
                    dechunker = ChunkedDecoder()
                }
                payload = content
                buffer = Data()
            }
            if dechunker != nil { payload = try dechunker!.decode(payload) }
            if !payload.isEmpty { try await body.write(payload) }
        }
        // A block of interim responses only: the last one is its response.
        if head == nil { head = try Self.finalResponseHead(in: buffer, ended: true)?.head }
        guard let head else { throw ArchiveError(reason: "The response record holds no complete HTTP response head.") }
        if let expected, let hasher, hasher.finalize() != expected {
            throw ArchiveError(reason: "The record's block does not match its WARC-Block-Digest: it is damaged.")
        }
        return head
    }

    /// The head of the final response in a response or revisit record's `block`, with the content after it, or
    /// `nil` while `block` does not hold it whole. Some recorders write the interim (1xx) responses that
    /// came first into the same block; they have no content (RFC 9110 §15.2), and the final response
    /// follows them. A 101 is the last HTTP response of its connection: what follows is another
    /// protocol's. When the block has `ended` after interim responses only, the last one is returned.
    private static func finalResponseHead(
        in block: Data, ended: Bool
    ) throws -> (head: HTTPMessageHead, content: Data)? {
        var rest = block
        while let (head, start) = try HTTPMessageHead.parse(rest) {
            let content = rest.subdata(in: start..<rest.endIndex)
            guard let status = head.status, (100..<200).contains(status), status != 101,
                !(ended && content.isEmpty)
            else { return (head, content) }
            rest = content
        }
        return nil
    }

    private func exchange(for record: WARCReader.Record, head: HTTPMessageHead) -> ArchivedExchange.Exchange {
        let header = record.header
        let time = header.date ?? Date()
        return ArchivedExchange.Exchange(
            url: header.targetURI ?? "", method: "GET", status: head.status ?? 0, responseHeaders: head.headers,
            requestHeaders: [:], requestTime: time, responseTime: time,
            partition: header.fields[ArchivedExchange.partitionField],
            varyKey: header.fields[ArchivedExchange.varyKeyField].flatMap { $0.percentDecoded },
            pinned: header.fields[ArchivedExchange.pinnedField] == "true", decodedFrom: nil)
    }

    private func apply(_ request: RequestInfo, to exchange: inout ArchivedExchange.Exchange) {
        exchange.method = request.method
        exchange.requestHeaders = request.headers
        if let date = request.date, date <= exchange.responseTime { exchange.requestTime = date }
    }

    // MARK: - HAR

    /// Imports the entries of a HAR file; `name` is the file name used in messages.
    func importHAR(path: String, name: String) async {
        let har: HARReader
        do {
            har = try HARReader(path: path)
        } catch {
            noteFileNotImported(error, in: name)
            return
        }
        await withTaskGroup(of: SaveOutcome.self) { group in
            var inFlight = 0
            var entries = 0
            while !Task.isCancelled {
                let next: (index: Int, entry: Result<HAREntry, ArchiveError>)?
                do {
                    next = try await har.next()
                } catch let error as ArchiveError where entries == 0 && error.entry == nil {
                    // Not a HAR file (not JSON, no log.entries), or one cut before its first entry.
                    noteFileNotImported(error, in: name)
                    break
                } catch {
                    // What was read before stays imported.
                    noteDamage(error, in: name)
                    break
                }
                guard let (index, result) = next else { break }
                entries += 1
                let place = "\(name)#entry \(index)"
                do {
                    let entry = try result.get()
                    // Its time is what its age is counted from: an entry without one is not stored as if fetched now.
                    guard let start = HARDate.parse(entry.startedDateTime) else {
                        noteDamage("\(place): The entry's startedDateTime '\(entry.startedDateTime)' is not a "
                                       + "date, so its response's age cannot be known.")
                        continue
                    }
                    let bytes = try entry.response.content.bytes()
                    var body = store.makeBodyWriter()
                    try await body.write(bytes)
                    await save(
                        PendingResponse(
                            exchange: exchange(for: entry, startedAt: start), body: body, recordID: "",
                            concurrentTo: [],
                            digestLabel: nil, place: place, revisit: false),
                        into: &group, inFlight: &inFlight)
                } catch {
                    note(Self.failure(at: place, error))
                }
            }
            for await outcome in group { note(outcome) }
        }
    }

    /// The exchange `entry` records, its request sent at `start` (its `startedDateTime`).
    private func exchange(for entry: HAREntry, startedAt start: Date) -> ArchivedExchange.Exchange {
        var headers = HTTPHeaders(entry.response.headers.map { HTTPField(name: $0.name, value: $0.value) })
        var decodedFrom: String?
        // HAR content is decoded unless webcache marked it coded.
        if entry._codedContent != true, let coding = headers["Content-Encoding"], !coding.caseInsensitiveEquals("identity") {
            decodedFrom = coding
            headers.remove("Content-Encoding")
            headers.remove("Content-Length")
        }
        var untilResponse = entry.time
        if let timings = entry.timings {
            untilResponse = [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait]
                .compactMap { $0 }.filter { $0 > 0 }.reduce(0, +)
        }
        return ArchivedExchange.Exchange(
            url: entry.request.url, method: entry.request.method, status: entry.response.status,
            responseHeaders: headers,
            requestHeaders: HTTPHeaders(entry.request.headers.map { HTTPField(name: $0.name, value: $0.value) }),
            requestTime: start, responseTime: start.addingTimeInterval(max(0, untilResponse) / 1000),
            partition: entry._partition, varyKey: entry._varyKey, pinned: entry._pinned ?? false,
            decodedFrom: decodedFrom)
    }

    // MARK: - Saving

    /// Saves a pending response, without request details if its request record never came.
    private func flushPending(into group: inout TaskGroup<SaveOutcome>, inFlight: inout Int) async {
        guard let item = pending else { return }
        pending = nil
        await save(item, into: &group, inFlight: &inFlight)
    }

    /// Starts saving `item`, first waiting for one save to end when a batch is in flight. A part is
    /// saved once the saves before it have ended, and before any other starts: parts are combined in
    /// the archive's order, and the entry keeps the fields of the one saved last, as when received.
    private func save(_ item: PendingResponse, into group: inout TaskGroup<SaveOutcome>, inFlight: inout Int) async {
        // A stopped import saves nothing more: the summary tells what was committed before.
        guard !Task.isCancelled else {
            try? await item.body.discard()
            return
        }
        let entry: CacheEntry
        do {
            switch try ArchivedExchange.stored(for: item.exchange) {
            case .entry(let whole):
                entry = whole
            case .part(let partial, let range, let completeLength):
                while let outcome = await group.next() { note(outcome) }
                inFlight = 0
                note(await savePart(item, of: partial, range: range, completeLength: completeLength))
                return
            case .notModified(let url, let partition, let head, let requestTime, let responseTime):
                // After the saves before it, which may be of the response it validates.
                try? await item.body.discard()
                while let outcome = await group.next() { note(outcome) }
                inFlight = 0
                note(await freshen(url: url, partition: partition, with: head, requestTime: requestTime,
                                   responseTime: responseTime, place: item.place))
                return
            }
        } catch {
            try? await item.body.discard()
            switch error {
            case .notCacheable: summary.skipped += 1
            case .notStorable(let reason):
                summary.skipped += 1
                summary.notStorable[reason.rawValue, default: 0] += 1
            case .unusable(let reason): noteDamage("\(item.place): \(reason)")
            }
            return
        }
        if inFlight >= Self.batchSize, let outcome = await group.next() {
            note(outcome)
            inFlight -= 1
        }
        let store = self.store
        let body = item.body
        let label = item.digestLabel
        let place = item.place
        let revisit = item.revisit
        group.addTask {
            do {
                guard let saved = try await store.saveUnlessOlder(entry, body: body) else { return .older }
                return .saved(bodyID: saved.bodyID, digestLabel: label, bytes: saved.bodySize, revisit: revisit)
            } catch {
                try? await body.discard()
                return ArchiveImport.failure(at: place, error)
            }
        }
        inFlight += 1
    }

    /// Saves the body of `item` as the bytes `range` of `partial`'s representation of `completeLength`
    /// bytes, through the store's rule for parts; a body of another length than the range is refused.
    private func savePart(
        _ item: PendingResponse, of partial: CacheEntry, range: ByteRange, completeLength: Int64
    ) async -> SaveOutcome {
        guard item.body.byteCount == range.length else {
            try? await item.body.discard()
            return .failed(
                "\(item.place): The 206 response for \(partial.url) holds \(item.body.byteCount) bytes, not the "
                    + "\(range.length) of its Content-Range.")
        }
        do {
            let saved = try await store.savePartUnlessOlder(
                partial, first: range.first, completeLength: completeLength,
                completeHeaders: PartialEntry.completeHeaders(partial.headers, completeLength: completeLength),
                body: item.body)
            return saved == nil ? .older : .savedPart(bytes: range.length)
        } catch {
            try? await item.body.discard()
            return Self.failure(at: item.place, error)
        }
    }

    /// Applies a 304 received at `responseTime` to the stored responses of `url` it validates, by the
    /// loader's rules (RFC 9111 §4.3.4: their fields merged with its fields, their age and freshness
    /// started again from it); a response stored from an exchange at that time or later is left as it is.
    private func freshen(
        url: String, partition: String, with head: HTTPResponseHead, requestTime: Date, responseTime: Date,
        place: String
    ) async -> SaveOutcome {
        do {
            let entries = try store.variants(partition: partition, method: .get, url: url).filter { !$0.isPartial }
            let stored = entries.map(\.storedResponse)
            let updates = HTTPCachePolicy.variantsToFreshen(stored, notModified: head).compactMap {
                index -> MetadataUpdate? in
                guard let id = entries[index].id, entries[index].responseTime < responseTime else { return nil }
                return MetadataUpdate(entryID: id, freshened: stored[index].freshened(
                    with: head, requestTime: requestTime, responseTime: responseTime))
            }
            return .freshened(count: updates.isEmpty ? 0 : try await store.updateMetadata(updates))
        } catch {
            return Self.failure(at: place, error)
        }
    }

    private func note(_ outcome: SaveOutcome) {
        switch outcome {
        case .saved(let bodyID, let label, let bytes, let revisit):
            summary.imported += 1
            summary.bodyBytes += bytes
            if revisit { summary.fromRevisits += 1 }
            if let bodyID, let label, WARCDigest.sha256(fromLabel: label) == nil { bodiesByDigest[label] = bodyID }
        case .savedPart(let bytes):
            summary.parts += 1
            summary.bodyBytes += bytes
        case .freshened(let count):
            if count == 0 { summary.skipped += 1 }
            summary.refreshed += count
        case .older:
            summary.older += 1
        case .failed(let message):
            noteDamage(message)
        case .notStored(let message):
            noteNotStored(message)
        }
    }

    /// Reports `error` of the file `name`: at its offset or entry, when it has one; a failure of the
    /// store (staging a body on a full disk) is counted as a record not stored, not as damage.
    private func noteDamage(_ error: any Error, in name: String) {
        let message = (error as? ArchiveError)?.message(file: name) ?? "\(name): \(Self.reason(error))"
        if Self.isStoreFailure(error) { noteNotStored(message) } else { noteDamage(message) }
    }

    private func noteNotStored(_ message: String) {
        summary.notStored += 1
        report(message)
    }

    private func noteDamage(_ message: String) {
        summary.damaged += 1
        report(message)
    }

    /// Reports `error` of the file `name`, of which nothing could be imported.
    private func noteFileNotImported(_ error: any Error, in name: String) {
        noteFileNotImported((error as? ArchiveError)?.message(file: name) ?? "\(name): \(Self.reason(error))")
    }

    private func noteFileNotImported(_ message: String) {
        summary.filesNotImported += 1
        report(message)
    }

    /// The sentence for an error.
    static func reason(_ error: any Error) -> String {
        (error as? ArchiveError)?.reason ?? String(describing: error)
    }
}
