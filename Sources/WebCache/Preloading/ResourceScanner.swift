import Discovery
import Foundation
import HTTPCore

/// Finds the references in a response body as it streams: HTML pages, stylesheets and web app manifests.
enum ResourceScanner {
    case html(HTMLScanner)
    case css(CSSScanner)
    case manifest(url: URL, collected: Data)
    case none

    /// The largest manifest read; manifests are small JSON documents.
    static let maximumManifestSize = 1 << 20

    /// The scanner for a response to `item`. A listed page is scanned as the type its response says it
    /// is (a stylesheet listed in a URL file is still a stylesheet); a requisite by what referenced it,
    /// unless its response says it is a stylesheet or a manifest.
    init(for item: PreloadItem, url: URL, headers: HTTPHeaders, includesMedia: Bool) {
        let contentType = headers["Content-Type"] ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingHTTPWhitespace().lowercased() } ?? ""
        let charset = ResourceScanner.charset(in: contentType)
        let isHTML = mediaType == "text/html" || mediaType == "application/xhtml+xml"
        if (item.isPage || item.kind == .document) && (isHTML || mediaType.isEmpty) {
            var options = HTMLScanner.Options()
            options.includesMedia = includesMedia
            // What a page shows without scripts is part of it too, as `wget2 --page-requisites` finds it.
            options.scansNoscript = true
            self = .html(HTMLScanner(documentURL: url, charset: charset, options: options))
        } else if item.kind == .document {
            self = .none
        } else if mediaType == "text/css" || (item.kind == .stylesheet && !isHTML) {
            self = .css(CSSScanner(stylesheetURL: url, charset: charset))
        } else if mediaType == "application/manifest+json" || (item.kind == .manifest && !isHTML) {
            self = .manifest(url: url, collected: Data())
        } else {
            self = .none
        }
    }

    /// Feeds one chunk; returns the references it completed.
    mutating func feed(_ chunk: Data) -> [Reference] {
        switch self {
        case .html(var scanner):
            let found = scanner.feed(chunk)
            self = .html(scanner)
            return found
        case .css(var scanner):
            let found = scanner.feed(chunk)
            self = .css(scanner)
            return found
        case .manifest(let url, var collected):
            if collected.count + chunk.count <= ResourceScanner.maximumManifestSize {
                collected.append(chunk)
            }
            self = .manifest(url: url, collected: collected)
            return []
        case .none:
            return []
        }
    }

    /// Ends the body; returns the last references.
    /// - Throws: ``DiscoveryError`` when a manifest is not valid JSON.
    mutating func finish() throws -> [Reference] {
        switch self {
        case .html(var scanner):
            let found = scanner.finish()
            self = .none
            return found
        case .css(var scanner):
            let found = scanner.finish()
            self = .none
            return found
        case .manifest(let url, let collected):
            self = .none
            return try ManifestScanner.icons(in: collected, manifestURL: url)
        case .none:
            return []
        }
    }

    /// The `charset` parameter of a `Content-Type` value, if any.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingHTTPWhitespace().lowercased() == "charset" else { continue }
            return parts[1].trimmingHTTPWhitespace().trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        }
        return nil
    }
}
