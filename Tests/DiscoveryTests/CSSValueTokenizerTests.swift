import Testing
import WebCacheTestSupport

@testable import Discovery

/// The value tokenizer reads UTF-8 bytes; it must give exactly the tokens of the scalar tokenizer
/// it replaced (``ScalarCSSValueTokenizer``) for any text: the values the device rules read (media
/// queries, `sizes`, selectors, font lists, `src` and `image-set()` entries) and random mixes of
/// every piece that changes a token's end or content.
@Suite struct CSSValueTokenizerTests {
    /// Texts of each kind the device rules tokenize, and the edges of the grammar.
    private static let fixed = [
        "", " ", "screen and (min-width: 768px)", "(max-width: 40em) 100vw, 50vw", "print",
        "not all and (monochrome)", "(min-resolution: 2dppx), (-webkit-min-device-pixel-ratio: 1.5)",
        ".c0-0, .c0-0 > .item:hover, #main .c0-0::after", "a[href^=\"http\"]:not(.x, #y) ~ li:nth-child(2n+1)",
        "\"Body 1\", Helvetica, sans-serif", "400 1rem/1.5 \"Body 1\", Helvetica, sans-serif",
        "url(\"../fonts/a.woff2\") format(\"woff2\"), url(../fonts/a.woff) format('woff') tech(variations)",
        "local(Gill Sans), url(x.otf)",
        "\"a.png\" 1x, url(b.png) 2x type(\"image/avif\"), linear-gradient(red, blue) 3x",
        "calc(100% - 2rem)", "-1.5e+3px +.5% 10E2 1e 1e+ 3.em .5 - -- -a --b", "#fff #-a #\\31 x #",
        "@media @-x @1 @", "a/* comment */b /* unterminated", "a /**/ /* x */ b", "/", "/*", "*/",
        "\"unterminated", "'bad\nstring' next", "\"esc\\\"aped\" 'nl\\\ncontinued' \"\\\r\n\"", "\"tail\\",
        "\\", "a\\", "\\31 23 \\000041 \\0 \\D800 \\110000 \\1F600x \\\\ \\é \\😀", "\\\n", "a\\\nb",
        "é, 😀 café-crème ünïcödé(x) Straße", "-é --😀 _x", "\u{C}\r\n\t ", "a\u{0}b", "(([[{}]]));:,",
        "ÉCRAN AND (MIN-WIDTH: 1PX) URL(X) FORMAT(\"WOFF\") @MEDIA 1PX 2DPPX",
    ]

    /// Pieces that random texts are made of: each changes how a token starts, ends or reads.
    private static let pieces = [
        " ", "\t", "\n", "\r", "\u{C}", "/*", "*/", "/", "*", "\"", "'", "\\", "\\\n", "\\31 ", "\\0", "\\ff ",
        "\\110000", "\\é", "(", ")", "[", "]", "{", "}", ",", ":", ";", "#", "@", "-", "--", "+", ".", "%", "e", "E",
        "1", "42", "3.5", "a", "Z", "_", "url", "format", "px", "é", "😀", "Ü", "\u{0}", "!", ">", "~", "=", "x-y",
    ]

    @Test func fixedTextsGiveTheScalarTokenizersTokens() {
        for text in Self.fixed {
            #expect(CSSValueTokenizer.tokens(text) == ScalarCSSValueTokenizer.tokens(text), "\(text.debugDescription)")
        }
    }

    @Test func randomTextsGiveTheScalarTokenizersTokens() {
        var generator = SeededGenerator(seed: 0x5EED_C55)
        var tokensSeen = 0
        for index in 0..<20_000 {
            var text = ""
            for _ in 0..<Int.random(in: 1...16, using: &generator) {
                text += Self.pieces.randomElement(using: &generator)!
            }
            let expected = ScalarCSSValueTokenizer.tokens(text)
            let tokens = CSSValueTokenizer.tokens(text)
            #expect(tokens == expected, "case \(index): \(text.debugDescription)")
            if tokens != expected { break }
            tokensSeen += tokens.count
        }
        // The texts made tokens of every length, not only empty lists.
        #expect(tokensSeen > 20_000)
    }

    @Test func everyKindOfTokenIsMade() {
        let tokens = CSSValueTokenizer.tokens(
            "a f( @k #h \"s\" 1 2% 3px , : ; ( ) [ ] { } > /* c */ \\31 x é")
        #expect(tokens == [
            .ident("a"), .whitespace, .function("f"), .whitespace, .atKeyword("k"), .whitespace, .hash("h"),
            .whitespace, .string("s"), .whitespace, .number(1), .whitespace, .percentage(2), .whitespace,
            .dimension(3, "px"), .whitespace, .comma, .whitespace, .colon, .whitespace, .semicolon, .whitespace,
            .openParen, .whitespace, .closeParen, .whitespace, .openBracket, .whitespace, .closeBracket,
            .whitespace, .openBrace, .whitespace, .closeBrace, .whitespace, .delim(">"), .whitespace,
            .ident("1x"), .whitespace, .ident("é"),
        ])
    }
}
