import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HAR 1.2 entry (an HTTP exchange), as browsers' developer tools export it
/// (<http://www.softwareishard.com/blog/har-12-spec/>), with the fields webcache reads and writes.
///
/// Fields that HAR requires but webcache cannot know (cookies, sizes) are written empty or `-1`, as
/// the specification allows. Custom fields start with `_`, as it asks: webcache keeps an entry's
/// partition, pin and Vary key; a body decoded from a content coding is marked as in WARC exports.
public struct HAREntry: Codable, Sendable, Hashable {
    /// When the request started, ISO 8601 with milliseconds.
    public var startedDateTime: String
    /// The exchange's total time in milliseconds.
    public var time: Double
    /// The request.
    public var request: Request
    /// The response.
    public var response: Response
    /// The phases of the exchange, in milliseconds; `-1` where unknown.
    public var timings: Timings?
    /// The ``HARPage/id`` of the page that made the request, in a recording of page loads.
    public var pageref: String?
    /// The webcache partition the response was stored in (`guest` when absent).
    public var _partition: String?
    /// Whether the entry was pinned in the store.
    public var _pinned: Bool?
    /// The Vary secondary key the response was stored under.
    public var _varyKey: String?
    /// Whether ``Response/content`` holds the bytes as the origin coded them (its `Content-Encoding`):
    /// HAR's content is otherwise decoded, whatever the headers say.
    public var _codedContent: Bool?
    /// In a recording of rendered pages, where the answer came from: `hit`, `stale`, `revalidated`
    /// or `network`.
    public var _source: String?

    /// A header field or query parameter.
    public struct NameValue: Codable, Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The request part.
    public struct Request: Codable, Sendable, Hashable {
        public var method: String
        public var url: String
        public var httpVersion: String?
        public var headers: [NameValue]
        public var cookies: [NameValue]?
        public var queryString: [NameValue]?
        public var headersSize: Int?
        public var bodySize: Int?

        public init(method: String, url: String, headers: [NameValue]) {
            self.method = method
            self.url = url
            self.httpVersion = "HTTP/1.1"
            self.headers = headers
            self.cookies = []
            self.queryString = []
            self.headersSize = -1
            self.bodySize = 0
        }
    }

    /// The response part.
    public struct Response: Codable, Sendable, Hashable {
        public var status: Int
        public var statusText: String?
        public var httpVersion: String?
        public var headers: [NameValue]
        public var cookies: [NameValue]?
        public var content: Content
        public var redirectURL: String?
        public var headersSize: Int?
        public var bodySize: Int?
        /// Why no response came (status 0), as browsers' developer tools record a failed request.
        public var _error: String?

        public init(status: Int, statusText: String, headers: [NameValue], content: Content) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = "HTTP/1.1"
            self.headers = headers
            self.cookies = []
            self.content = content
            self.redirectURL = ""
            self.headersSize = -1
            self.bodySize = content.size
        }
    }

    /// The response content: text as is, or base64 (`encoding: "base64"`) for other bytes.
    public struct Content: Codable, Sendable, Hashable {
        public var size: Int
        public var mimeType: String?
        public var text: String?
        public var encoding: String?

        public init(size: Int, mimeType: String, text: String?, encoding: String?) {
            self.size = size
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
        }

        /// Content for `body`: as text when it is UTF-8 of a textual type, else base64.
        public init(body: Data, mimeType: String) {
            let textual = mimeType.hasPrefix("text/") || mimeType.contains("json") || mimeType.contains("xml")
                || mimeType.contains("javascript")
            if textual, let text = String(data: body, encoding: .utf8) {
                self.init(size: body.count, mimeType: mimeType, text: text, encoding: nil)
            } else {
                self.init(size: body.count, mimeType: mimeType, text: body.base64EncodedString(), encoding: "base64")
            }
        }

        /// The content's bytes.
        ///
        /// - Throws: ``ArchiveError`` when `encoding` is base64 and `text` is not, or names an
        ///   encoding HAR does not define.
        public func bytes() throws -> Data {
            guard let text else { return Data() }
            switch encoding?.lowercased() {
            case nil, "":
                return Data(text.utf8)
            case "base64":
                // Line breaks and spaces (which some tools wrap base64 with) are dropped as bytes: the
                // text can be many megabytes, too long to walk as characters.
                if let data = Data(base64Encoded: text) { return data }
                let unwrapped = Data(text.utf8.filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: " ") })
                guard let data = Data(base64Encoded: unwrapped) else {
                    throw ArchiveError(reason: "The response content is marked base64 but is not valid base64.")
                }
                return data
            case let other?:
                throw ArchiveError(reason: "The response content has the unknown encoding '\(other)'.")
            }
        }
    }

    /// The phases of the exchange in milliseconds (`-1`: does not apply).
    public struct Timings: Codable, Sendable, Hashable {
        public var blocked: Double?
        public var dns: Double?
        public var connect: Double?
        public var send: Double
        public var wait: Double
        public var receive: Double
        public var ssl: Double?

        public init(send: Double, wait: Double, receive: Double) {
            self.blocked = -1
            self.dns = -1
            self.connect = -1
            self.send = send
            self.wait = wait
            self.receive = receive
            self.ssl = -1
        }
    }

    /// Creates an entry.
    public init(startedDateTime: Date, time: Double, request: Request, response: Response, timings: Timings?) {
        self.startedDateTime = HARDate.format(startedDateTime)
        self.time = time
        self.request = request
        self.response = response
        self.timings = timings
    }
}

/// HAR's dates: ISO 8601 with milliseconds and a zone (`2026-12-01T16:15:59.123Z`).
public enum HARDate {
    /// `date` in UTC with milliseconds, rounded half up as Foundation's `ISO8601DateFormatter`
    /// rounds them (`Date.ISO8601FormatStyle` cuts them instead).
    public static func format(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
        let seconds = (milliseconds / 1000).rounded(.down)
        var time = time_t(seconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        func digits(_ value: Int32, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return digits(fields.tm_year + 1900, 4) + "-" + digits(fields.tm_mon + 1, 2) + "-" + digits(fields.tm_mday, 2)
            + "T" + digits(fields.tm_hour, 2) + ":" + digits(fields.tm_min, 2) + ":" + digits(fields.tm_sec, 2)
            + "." + digits(Int32(milliseconds - seconds * 1000), 3) + "Z"
    }

    /// Parses a HAR date, with or without fractional seconds (kept to the millisecond, as
    /// `ISO8601DateFormatter` keeps them); `nil` when it is not one.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) {
            return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
