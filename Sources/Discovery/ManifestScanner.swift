import FoundationEssentials
import HTTPCore

/// Finds the images a web app manifest refers to (Web Application Manifest §`icons`, `screenshots`).
public enum ManifestScanner {
    /// The icons of a manifest, and optionally its screenshots, resolved against the manifest's URL.
    ///
    /// Entries whose `src` is missing, not a string, or not fetchable are skipped.
    ///
    /// - Parameters:
    ///   - data: The manifest's bytes (JSON).
    ///   - manifestURL: The URL the manifest was fetched from, which `src` values are relative to.
    ///   - includesScreenshots: Whether to report `screenshots[].src` as images too.
    /// - Returns: ``Reference/Kind/icon`` references, then ``Reference/Kind/image`` ones for screenshots.
    /// - Throws: ``DiscoveryError`` with code ``DiscoveryError/Code/invalidManifest`` naming the
    ///   manifest URL when the data is not a JSON object.
    public static func icons(
        in data: Data,
        manifestURL: URL,
        includesScreenshots: Bool = false
    ) throws(DiscoveryError) -> [Reference] {
        let object: JSONValue
        do {
            object = try JSONValue.parse(data)
        } catch {
            throw DiscoveryError(
                code: .invalidManifest,
                message: "The web app manifest at \(manifestURL.absoluteString) is not valid JSON.",
                url: manifestURL,
                cause: ManifestParseFailure(description: "\(error)")
            )
        }
        guard case .object(let manifest) = object else {
            throw DiscoveryError(
                code: .invalidManifest,
                message: "The web app manifest at \(manifestURL.absoluteString) is not a JSON object.",
                url: manifestURL
            )
        }
        var references = images(in: manifest["icons"], member: "icons", kind: .icon, manifestURL: manifestURL)
        if includesScreenshots {
            references += images(
                in: manifest["screenshots"],
                member: "screenshots",
                kind: .image,
                manifestURL: manifestURL
            )
        }
        return references
    }

    private static func images(in member: JSONValue?, member name: String, kind: Reference.Kind, manifestURL: URL)
        -> [Reference]
    {
        guard let entries = member?.arrayValue else { return [] }
        return entries.compactMap { entry in
            guard let src = entry["src"]?.stringValue,
                let url = URLCleaner.resolve(src, against: manifestURL)
            else { return nil }
            return Reference(urlString: url, kind: kind, source: Reference.Source(manifestMember: name), isRequisite: true)
        }
    }
}

/// The JSON parser's complaint about a manifest, kept as text so the error stays `Sendable`.
struct ManifestParseFailure: Error, Sendable, CustomStringConvertible {
    var description: String
}
