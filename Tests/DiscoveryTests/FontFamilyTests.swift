import Foundation
import Testing
import WebCacheTestSupport

@testable import Discovery

/// The byte readers of font values, checked against the token-based readers: the byte test that
/// spares a custom property's value its tokenization (``FontFamilies/mayNameAFamily(_:)``) must
/// never skip a value the tokenizer finds a family in, and the byte reader of families
/// (``FontFamilies/names(inASCII:shorthand:)``) must name the same families.
@Suite struct FontFamilyTests {
    private static func mayName(_ value: String) -> Bool {
        FontFamilies.mayNameAFamily(Array(value.utf8)[...])
    }

    @Test func valuesThatNameNoFamilyAreToldFromTheirBytes() {
        for value in ["12px", " #0d6efd", ".5", "-1px", "-.5em", "+3", "(a)", "var(--x)", " rgba(0, 0, 0, .1)",
                      "calc(100% - 2rem)", "", "   "]
        {
            #expect(!Self.mayName(value), "\(value)")
            #expect(FontFamilies.names(inFamilyList: value).isEmpty, "\(value)")
        }
        for value in ["Inter", "\"Body 1\"", "system-ui, sans-serif", "-apple-system", "12px, Foo", "/* x */ Foo",
                      "\\46 oo", "Économe", "!x", "foo bar"]
        {
            #expect(Self.mayName(value), "\(value)")
        }
    }

    @Test func noValueWithAFamilyIsSkipped() {
        // Values put together from the pieces custom properties are made of, in every order.
        let pieces = ["12px", "#fff", ".5", "-1px", "var(--x)", "rgba(0, 0, 0, .1)", "Inter", "\"Body\"", "'A B'",
                      "sans-serif", ",", " ", "-apple-system", "calc(1px + 2%)", "(", ")", "/**/", "\\41", "é", "-",
                      "foo(", "0", "!important"]
        var random = SeededGenerator(seed: 17)
        var skipped = 0
        for _ in 0..<20_000 {
            let value = (0..<Int.random(in: 1...5, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined(separator: Bool.random(using: &random) ? " " : "")
            let families = FontFamilies.names(inFamilyList: value)
            if !Self.mayName(value) {
                skipped += 1
                #expect(families.isEmpty, "'\(value)' names \(families) yet was skipped")
            }
        }
        #expect(skipped > 1_000, "the byte test decided too few values to be checked: \(skipped)")
    }

    /// The byte reader of `font` and `font-family` values must name the families the token-based
    /// readers name, wherever it answers, and answer for the values stylesheets are made of.
    @Test func theByteReaderNamesWhatTheTokenReaderNames() {
        let pieces = ["12px", "1rem/1.5", "/", "400", "bold", "italic", "small-caps", "Small", "X-LARGE", "larger",
                      "100%", ".5em", "-1px", "+2", "1e3", "2E-1px", "#fff", "#1px", "@x", "@", "Inter", "\"Body 1\"",
                      "'A B'", "\"BIG\"", "sans-serif", "Serif", ",", " ", "\n", "-apple-system", "-", "--x", "-5",
                      "_u", "a_b-c1", "!important", ":", ";", "*", "\"un", "\"a\\\"b\"", "calc(1px)", "(", "]",
                      "/**/", "\\41", "é", "\"é\"", "inherit", "INITIAL", "\u{0B}", "\0", "1-2", "1--x"]
        var random = SeededGenerator(seed: 23)
        var answered = 0
        for _ in 0..<30_000 {
            let value = (0..<Int.random(in: 0...7, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined(separator: Bool.random(using: &random) ? " " : "")
            for shorthand in [false, true] {
                let bytes = Array(value.utf8)
                guard let fast = bytes.withUnsafeBufferPointer({ FontFamilies.names(inASCII: $0, shorthand: shorthand) })
                else { continue }
                answered += 1
                let slow = shorthand ? FontFamilies.names(inFontShorthand: value) : FontFamilies.names(inFamilyList: value)
                #expect(fast == slow, "'\(value)' (shorthand \(shorthand)): \(fast), tokens give \(slow)")
            }
        }
        #expect(answered > 15_000, "the byte reader answered too few values: \(answered)")
        for value in ["400 1rem/1.5 \"Body 3\", Helvetica, sans-serif", "italic bold 12px/30px Georgia, serif",
                      "Inter, system-ui", "\"Fancy 1\""]
        {
            let bytes = Array(value.utf8)
            #expect(bytes.withUnsafeBufferPointer { FontFamilies.names(inASCII: $0, shorthand: true) } != nil, "\(value)")
        }
    }

    /// A use found in a stylesheet keeps its selector's hash; it must equal, and hash as, the use
    /// a caller makes, and one whose selector is changed afterwards.
    @Test func usesFoundInAStylesheetEqualThoseMadeByHand() throws {
        // Given
        let selector = ".c1-1, .c1-1 > .item:hover, #main .c1-1::after"
        let css = "\(selector) { font: 400 1rem/1.5 \"Body\", Helvetica, sans-serif; }"
        var scanner = CSSScanner(stylesheetURL: try #require(URL(string: "https://example.com/a.css")))
        _ = scanner.feed(Array(css.utf8)) + scanner.finish()
        // When
        var changed = FontFamilyUse(family: "body", selector: "p")
        changed.selector = selector
        let made: Set = [FontFamilyUse(family: "body", selector: selector), changed,
                         FontFamilyUse(family: "helvetica", selector: selector)]
        // Then
        #expect(scanner.usedFontFamilies == made)
        #expect(scanner.usedFontFamilies.contains(changed))
        #expect(!scanner.usedFontFamilies.contains(FontFamilyUse(family: "body", selector: nil)))
    }

    /// A use keeps its family's hash as well: changing the family afterwards must make it equal,
    /// and hash as, a use made with the new family.
    @Test func aUseWhoseFamilyIsChangedEqualsOneMadeWithIt() {
        // Given
        var changed = FontFamilyUse(family: "body", selector: "p")
        // When
        changed.family = "helvetica"
        // Then
        let made = FontFamilyUse(family: "helvetica", selector: "p")
        #expect(changed == made)
        #expect(Set([made]).contains(changed))
        #expect(!Set([FontFamilyUse(family: "body", selector: "p")]).contains(changed))
    }

    private static func uses(_ css: String) throws -> Set<FontFamilyUse> {
        var scanner = CSSScanner(stylesheetURL: try #require(URL(string: "https://example.com/a.css")))
        _ = scanner.feed(Array(css.utf8)) + scanner.finish()
        return scanner.usedFontFamilies
    }

    /// The families of a value read once are remembered (``RecentFontValues``): a value of the same
    /// length but other bytes, the same bytes as a `font` shorthand rather than a `font-family`
    /// list, and a value remembered before others pushed it out must each be read as itself.
    @Test func rememberedFontValuesAreToldApart() throws {
        // Given: `700 1rem Body` names no family as a list (a number starts it) and `body` as a shorthand.
        let css = """
            a { font-family: Aaaa; } b { font-family: Bbbb; }
            c { font-family: 700 1rem Body; } d { font: 700 1rem Body; }
            e { font-family: F1; } f { font-family: F2; } g { font-family: F3; } h { font-family: F4; }
            i { font-family: F5; } j { font-family: Aaaa; } k { font-family: F1; }
            """
        // When
        let uses = try Self.uses(css)
        // Then
        let expected: Set = [
            FontFamilyUse(family: "aaaa", selector: "a"), FontFamilyUse(family: "bbbb", selector: "b"),
            FontFamilyUse(family: "body", selector: "d"), FontFamilyUse(family: "f1", selector: "e"),
            FontFamilyUse(family: "f2", selector: "f"), FontFamilyUse(family: "f3", selector: "g"),
            FontFamilyUse(family: "f4", selector: "h"), FontFamilyUse(family: "f5", selector: "i"),
            FontFamilyUse(family: "aaaa", selector: "j"), FontFamilyUse(family: "f1", selector: "k"),
        ]
        #expect(uses == expected)
    }

    /// A value split across the pieces fed is read whole, and remembered whole: the same value fed
    /// in one piece afterwards names the same families.
    @Test func aFontValueSplitAcrossPiecesIsRememberedWhole() throws {
        // Given
        let css = "a { font: 400 1rem/1.5 \"Body 1\", Helvetica, sans-serif; }"
            + " b { font: 400 1rem/1.5 \"Body 1\", Helvetica, sans-serif; }"
        let bytes = Array(css.utf8)
        for split in 1..<bytes.count {
            var scanner = CSSScanner(stylesheetURL: try #require(URL(string: "https://example.com/a.css")))
            // When
            _ = scanner.feed(bytes[..<split]) + scanner.feed(bytes[split...]) + scanner.finish()
            // Then
            let expected: Set = [
                FontFamilyUse(family: "body 1", selector: "a"), FontFamilyUse(family: "helvetica", selector: "a"),
                FontFamilyUse(family: "body 1", selector: "b"), FontFamilyUse(family: "helvetica", selector: "b"),
            ]
            #expect(scanner.usedFontFamilies == expected, "split at \(split)")
        }
    }

    /// A property name with a non-ASCII byte is trimmed of Unicode spaces and lowered as Unicode
    /// text; an ASCII one is compared in place.
    @Test func aPropertyNameWithNonASCIISpacesIsReadAsUnicodeText() throws {
        // Given: an em space before one name, a no-break space after another.
        let css = "a { \u{2003}font-family: Foo; } b { FONT-FAMILY\u{00A0}: Bar; } c { font-family: Baz; }"
        // When
        let uses = try Self.uses(css)
        // Then
        #expect(uses == [FontFamilyUse(family: "foo", selector: "a"), FontFamilyUse(family: "bar", selector: "b"),
                         FontFamilyUse(family: "baz", selector: "c")])
    }
}
