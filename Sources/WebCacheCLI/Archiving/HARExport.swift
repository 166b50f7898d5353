import Archive
import CacheStore
import Foundation
import HTTPCore

/// Writes the selected entries of a store to a HAR 1.2 file, one entry per stored response, with its
/// body as text or base64 and its request and response times as the entry's timings.
struct HARExport {
    let store: CacheStore
    let selection: ExportSelection
    let path: String

    /// Writes the file; returns the number of entries and body bytes written.
    func run(version: String) async throws -> (entries: Int, bodyBytes: Int64) {
        let writer = try HARWriter(path: path, creator: "webcache", version: version)
        var count = 0
        var bytes: Int64 = 0
        try await selection.forEachBatch(in: store) { batch in
            for entry in batch {
                guard let bodyID = entry.bodyID else { continue }
                try writer.write(harEntry(entry, body: try store.bodyData(bodyID: bodyID)))
                count += 1
                bytes += entry.bodySize
            }
        }
        try writer.close()
        return (count, bytes)
    }

    private func harEntry(_ entry: CacheEntry, body: Data) -> HAREntry {
        let request = ArchivedExchange.requestHead(of: entry)
        let headers = ArchivedExchange.responseHeaders(of: entry)
        let content = HAREntry.Content(body: body, mimeType: headers["Content-Type"] ?? "")
        let wait = max(0, entry.responseTime.timeIntervalSince(entry.requestTime)) * 1000
        var har = HAREntry(
            startedDateTime: entry.requestTime, time: wait,
            request: HAREntry.Request(
                method: entry.method.rawValue, url: entry.url,
                headers: request.headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) }),
            response: HAREntry.Response(
                status: entry.status, statusText: HTTPStatus.reasonPhrase(entry.status) ?? "",
                headers: headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) }, content: content),
            timings: HAREntry.Timings(send: 0, wait: wait, receive: 0))
        har._partition = entry.partition
        har._pinned = entry.pinned ? true : nil
        har._varyKey = entry.varyKey.isEmpty ? nil : entry.varyKey
        if let coding = headers["Content-Encoding"], !coding.caseInsensitiveEquals("identity") { har._codedContent = true }
        return har
    }
}
