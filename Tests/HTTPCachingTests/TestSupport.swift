import Foundation
import HTTPCore

@testable import HTTPCaching

/// A fixed instant all tests measure from: Tue, 14 Nov 2023 22:13:20 GMT.
let t0 = Date(timeIntervalSince1970: 1_700_000_000)

/// The IMF-fixdate of `t0 + offset`.
func httpDate(_ offset: TimeInterval) -> String {
    HTTPDate.format(t0.addingTimeInterval(offset))
}

/// Headers from name/value pairs, kept in order (repeated names allowed).
func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
    HTTPHeaders(pairs.map { HTTPField(name: $0.0, value: $0.1) })
}

/// A stored response received at `t0 + received` for a request sent at `t0 + sent`.
/// Unless `headers` has one, `Date` is added as `t0 + received` so that the apparent age is 0.
func stored(
    _ pairs: [(String, String)],
    status: Int = 200,
    sent: TimeInterval = 0,
    received: TimeInterval = 0,
    varyKey: String = "",
    addDate: Bool = true
) -> StoredResponse {
    var fields = headers(pairs)
    if addDate, !fields.contains("Date") { fields.append(name: "Date", value: httpDate(received)) }
    return StoredResponse(
        status: status,
        headers: fields,
        requestTime: t0.addingTimeInterval(sent),
        responseTime: t0.addingTimeInterval(received),
        varyKey: varyKey
    )
}

/// A request for the test URL.
func request(_ pairs: [(String, String)] = [], method: HTTPMethod = .get) -> HTTPRequest {
    HTTPRequest(method: method, url: URL(string: "https://example.com/a/page.html")!, headers: headers(pairs))
}
