import Archive
import Foundation
import HTTPCore

/// Hand-made HAR files for tests.
enum HARFixture {
    /// A HAR document with one GET entry for each response, fetched now.
    static func document(_ responses: [(url: String, status: Int, headers: HTTPHeaders, body: String)]) throws -> Data {
        let entries: [[String: Any]] = responses.map { response in
            [
                "startedDateTime": HARDate.format(Date()), "time": 1,
                "request": ["method": "GET", "url": response.url, "headers": [[String: String]]()],
                "response": [
                    "status": response.status,
                    "headers": response.headers.map { ["name": $0.name, "value": $0.value] },
                    "content": ["size": response.body.utf8.count, "text": response.body],
                ],
            ]
        }
        return try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
    }
}
