import Foundation
import Testing

@testable import WebCacheCLI

/// Problems quote the line, but never a password in it, and never raw control characters.
struct URLListFileExcerptTests {
    @Test func aProblemHidesThePasswordOfTheLineItQuotes() throws {
        let file = try URLListFile(data: Data("http://user:hunter2@a.test/a b\n".utf8), name: "urls.txt")
        #expect(file.problems.count == 1)
        let text = file.problems.first?.description ?? ""
        #expect(text.hasPrefix("urls.txt:1: "))
        #expect(!text.contains("hunter2"))
        #expect(text.contains("http://***@a.test/a b"))
    }

    @Test func aProblemSpellsOutControlCharacters() throws {
        var data = Data("http://a.test/x".utf8)
        data.append(contentsOf: [0x01, 0x1B])
        data.append(contentsOf: Array("y\n".utf8))
        let file = try URLListFile(data: data, name: "urls.txt")
        let text = file.problems.first?.description ?? ""
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
        #expect(text.contains("http://a.test/x\\u{1}\\u{1b}y"))
    }
}
