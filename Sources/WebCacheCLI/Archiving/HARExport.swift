import Archive
import CacheStore
import FoundationEssentials
import HTTPCore

/// Writes the selected entries of a store to a HAR 1.2 file, one entry per stored response, with its
/// body as text or base64 and its request and response times as the entry's timings. A partial entry
/// is written as a 206 entry for each of its parts, each with the request for that range.
///
/// An entry whose body cannot be read, or holds other bytes than its entry records, is reported with
/// its URL and left out; the export goes on.
struct HARExport {
    /// What was written.
    struct Summary: Sendable {
        /// Entries written, partial ones included.
        var entries = 0
        /// Partial entries, and the HAR entries of their parts.
        var partialEntries = 0
        var parts = 0
        /// Entries left out, each reported.
        var failed = 0
        var bodyBytes: Int64 = 0
    }

    let store: CacheStore
    let selection: ExportSelection
    let path: String
    /// Receives one line per entry left out: its URL and why.
    let report: (String) -> Void

    /// Writes the file.
    func run(version: String) async throws -> Summary {
        let writer = try HARWriter(path: path, creator: "webcache", version: version)
        var summary = Summary()
        try await selection.forEachBatch(in: store) { batch in
            for entry in batch {
                // A signal stops the export between entries.
                try Task.checkCancellation()
                guard let bodyID = entry.bodyID else { continue }
                let written: [HAREntry]
                do {
                    if entry.isPartial {
                        // Every part is read before the first is written: the entry is whole or left out.
                        written = try ExportSelection.parts(of: entry, in: store).map { part in
                            harEntry(
                                entry, status: 206, headers: ArchivedExchange.responseHeaders(of: entry, part: part),
                                request: ArchivedExchange.requestHead(of: entry, part: part),
                                body: try body(part.bodyID, length: part.length))
                        }
                        summary.partialEntries += 1
                        summary.parts += written.count
                    } else {
                        written = [harEntry(
                            entry, status: entry.status, headers: ArchivedExchange.responseHeaders(of: entry),
                            request: ArchivedExchange.requestHead(of: entry),
                            body: try body(bodyID, length: entry.bodySize))]
                    }
                } catch let failure as ExportFailure {
                    summary.failed += 1
                    report("\(entry.url): \(failure.reason)")
                    continue
                }
                for har in written { try writer.write(har) }
                summary.entries += 1
                summary.bodyBytes += entry.bodySize
            }
        }
        try writer.close()
        return summary
    }

    /// Stored body `bodyID`, which must hold `length` bytes.
    private func body(_ bodyID: Int64, length: Int64) throws(ExportFailure) -> Data {
        let body = try ExportFailure.reading { try store.bodyData(bodyID: bodyID) }
        guard Int64(body.count) == length else {
            throw ExportFailure(
                reason: "The stored body holds \(body.count) bytes, not the \(length) its entry records.")
        }
        return body
    }

    private func harEntry(
        _ entry: CacheEntry, status: Int, headers: HTTPHeaders, request: HTTPMessageHead, body: Data
    ) -> HAREntry {
        let content = HAREntry.Content(body: body, mimeType: headers["Content-Type"] ?? "")
        let wait = max(0, entry.responseTime.timeIntervalSince(entry.requestTime)) * 1000
        var har = HAREntry(
            startedDateTime: entry.requestTime, time: wait,
            request: HAREntry.Request(
                method: entry.method.rawValue, url: entry.url,
                headers: request.headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) }),
            response: HAREntry.Response(
                status: status, statusText: HTTPStatus.reasonPhrase(status) ?? "",
                headers: headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) }, content: content),
            timings: HAREntry.Timings(send: 0, wait: wait, receive: 0))
        har._partition = entry.partition
        har._pinned = entry.pinned ? true : nil
        har._varyKey = entry.varyKey.isEmpty ? nil : entry.varyKey
        if let coding = headers["Content-Encoding"], !coding.caseInsensitiveEquals("identity") {
            har._codedContent = true
        }
        return har
    }
}
