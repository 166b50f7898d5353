import Foundation
import Testing
import WebCacheTestSupport

@testable import Discovery

/// The byte test that spares a custom property's value its tokenization
/// (``FontFamilies/mayNameAFamily(_:)``) must never skip a value the tokenizer finds a family in.
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
}
