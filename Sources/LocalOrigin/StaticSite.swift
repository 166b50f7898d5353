import Foundation
import HTTPCore
import Synchronization

/// A handler that serves the files of a directory, as a static web server does.
///
/// Each response carries `Content-Type` (by extension), a strong `ETag` computed from the content,
/// `Last-Modified` (the file's modification time) and a `Cache-Control` chosen by path or extension.
/// Conditional requests get 304: `If-None-Match` when present, else `If-Modified-Since`. Range
/// requests get 206 or 416 (``OriginResponse/ranged(_:headers:request:)``).
/// `HEAD` is answered, other methods than `GET`/`HEAD` get 405, missing files 404, and targets
/// that would leave the directory (`..`, encoded or not) get 403.
///
/// ```swift
/// let site = StaticSite(root: folder)
/// let server = OriginServer(handler: site.handler)
/// ```
public struct StaticSite: Sendable {
    /// The served directory.
    public let root: URL
    /// `Cache-Control` values by exact URL path (such as `/index.html`); wins over ``cacheControlByExtension``.
    public var cacheControlByPath: [String: String] = [:]
    /// `Cache-Control` values by lower-case file extension without the dot.
    public var cacheControlByExtension: [String: String] = StaticSite.defaultCacheControl
    /// The `Cache-Control` value for files no other rule covers; `nil` sends none.
    public var defaultCacheControlValue: String? = "max-age=60"

    private let contents = ContentCache()

    /// The default `Cache-Control` rules: HTML is revalidated each time, styles, scripts, fonts
    /// and images are cached for a year.
    public static let defaultCacheControl: [String: String] = {
        var rules: [String: String] = ["html": "no-cache", "htm": "no-cache"]
        for ext in ["css", "js", "mjs", "woff", "woff2", "ttf", "otf", "png", "jpg", "jpeg", "gif", "webp", "avif",
            "svg", "ico"]
        {
            rules[ext] = "public, max-age=31536000"
        }
        return rules
    }()

    /// Content types by lower-case extension.
    public static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json", "txt": "text/plain; charset=utf-8",
        "xml": "application/xml", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp", "avif": "image/avif",
        "ico": "image/x-icon", "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "wasm": "application/wasm", "pdf": "application/pdf", "webm": "video/webm", "mp4": "video/mp4",
    ]

    /// Creates a site serving the files under `root`.
    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// This site as an ``OriginServer/Handler``.
    public var handler: OriginServer.Handler {
        { request in self.respond(to: request) }
    }

    // MARK: - Answering

    /// Answers one request.
    public func respond(to request: OriginRequest) -> OriginResponse {
        guard request.method == .get || request.method == .head else {
            return .text("Method \(request.method) is not allowed.\n", status: 405, headers: ["Allow": "GET, HEAD"])
        }
        guard let relative = Self.relativePath(fromTarget: request.path) else {
            return .text("The path \(request.path) is outside the site.\n", status: 403)
        }
        var file = relative.isEmpty ? root : root.appending(path: relative)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), isDirectory.boolValue {
            file = file.appending(path: "index.html")
        }
        guard let entry = contents.entry(for: file) else {
            return .text("Not found: \(request.path)\n", status: 404)
        }
        var headers: HTTPHeaders = [
            "ETag": entry.etag,
            "Last-Modified": HTTPDate.format(entry.modified),
        ]
        let ext = file.pathExtension.lowercased()
        let urlPath = "/" + relative
        if let cacheControl = cacheControlByPath[urlPath] ?? cacheControlByPath[request.path]
            ?? cacheControlByExtension[ext] ?? defaultCacheControlValue
        {
            headers.append(name: "Cache-Control", value: cacheControl)
        }
        if Self.isNotModified(request.headers, etag: entry.etag, modified: entry.modified) {
            return OriginResponse(status: 304, headers: headers)
        }
        headers.append(name: "Content-Type", value: Self.contentTypes[ext] ?? "application/octet-stream")
        return .ranged(entry.data, headers: headers, request: request)
    }

    /// Whether the request's validators match (RFC 9110 §13.1.1, §13.1.3, §13.2.2).
    static func isNotModified(_ headers: HTTPHeaders, etag: String, modified: Date) -> Bool {
        if headers.contains("If-None-Match") {
            let tags = headers.listValues(for: "If-None-Match")
            let opaque = { (tag: String) in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
            return tags.contains { $0 == "*" || opaque($0) == opaque(etag) }
        }
        if let since = headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            return modified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }

    /// The decoded path below the root, without leading slash; `nil` when it would leave the root.
    static func relativePath(fromTarget target: String) -> String? {
        guard let decoded = target.removingPercentEncoding, !decoded.contains("\0"), !decoded.contains("\\") else {
            return nil
        }
        var parts: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." { return nil }
            parts.append(segment)
        }
        return parts.joined(separator: "/")
    }
}

// MARK: - Content cache

/// File contents and their ETags, reused while the file's size and modification time stay the same.
private final class ContentCache: Sendable {
    struct Entry: Sendable {
        var data: Data
        var etag: String
        var modified: Date
        var size: Int
    }

    private let entries = Mutex<[String: Entry]>([:])

    func entry(for file: URL) -> Entry? {
        let path = file.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let modified = attributes[.modificationDate] as? Date,
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { return nil }
        if let cached = entries.withLock({ $0[path] }), cached.modified == modified, cached.size == size {
            return cached
        }
        guard let data = try? Data(contentsOf: file) else { return nil }
        let entry = Entry(data: data, etag: "\"\(Self.fnv1a(data))-\(String(data.count, radix: 16))\"",
            modified: modified, size: size)
        entries.withLock { $0[path] = entry }
        return entry
    }

    /// 64-bit FNV-1a of the content, in hex: cheap, and strong enough to tell versions of a test file apart.
    static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
