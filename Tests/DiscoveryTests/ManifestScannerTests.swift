import Foundation
import Testing

@testable import Discovery

@Suite struct ManifestScannerTests {
    let manifestURL = URL(string: "https://example.com/app/manifest.webmanifest")!

    @Test func resolvesIconsAgainstTheManifestURL() throws {
        // Given
        let json = """
            {"name": "App", "icons": [{"src": "icon-192.png", "sizes": "192x192"}, {"src": "/i/512.png"},
             {"sizes": "1x1"}, {"src": 42}, {"src": "data:image/png;base64,AA"}],
             "screenshots": [{"src": "shot.png"}]}
            """
        // When
        let icons = try ManifestScanner.icons(in: Data(json.utf8), manifestURL: manifestURL)
        let all = try ManifestScanner.icons(in: Data(json.utf8), manifestURL: manifestURL, includesScreenshots: true)
        // Then
        #expect(
            icons.map(\.url.absoluteString) == ["https://example.com/app/icon-192.png", "https://example.com/i/512.png"]
        )
        #expect(icons.allSatisfy { $0.kind == .icon && $0.source.manifestMember == "icons" && $0.isRequisite })
        #expect(all.count == 3)
        #expect(all.last?.kind == .image)
        #expect(all.last?.url.absoluteString == "https://example.com/app/shot.png")
    }

    /// A manifest saved with a UTF-8 byte order mark is read, as Foundation's JSON reader read it.
    @Test func readsAManifestThatStartsWithAByteOrderMark() throws {
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(#"{"icons": [{"src": "icon.png"}]}"#.utf8)
        #expect(try JSONSerialization.jsonObject(with: data) is [String: Any])
        let icons = try ManifestScanner.icons(in: data, manifestURL: manifestURL)
        #expect(icons.map(\.url.absoluteString) == ["https://example.com/app/icon.png"])
    }

    @Test func returnsNothingWithoutIcons() throws {
        #expect(try ManifestScanner.icons(in: Data(#"{"icons": "nope"}"#.utf8), manifestURL: manifestURL).isEmpty)
    }

    @Test(arguments: ["{not json", "[1, 2]", ""])
    func rejectsBadManifestsNamingTheirURL(_ text: String) {
        let error = #expect(throws: DiscoveryError.self) {
            try ManifestScanner.icons(in: Data(text.utf8), manifestURL: manifestURL)
        }
        #expect(error?.code == .invalidManifest)
        #expect(error?.url == manifestURL)
        #expect(error?.description.contains("https://example.com/app/manifest.webmanifest") == true)
    }
}
