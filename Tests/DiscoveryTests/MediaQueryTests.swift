import Testing

@testable import Discovery

/// Media Queries Level 4 evaluation, by table: each query with its result on the desktop
/// (1280×800 at 1x), the phone (390×844 at 3x, coarse pointer) and a dark, reduced-motion laptop.
struct MediaQueryTests {
    static let darkLaptop = DeviceProfile(
        viewportWidth: 1440, viewportHeight: 900, devicePixelRatio: 2, colorScheme: .dark, prefersReducedMotion: true)

    /// (query, desktop, phone, dark laptop)
    static let table: [(String, Bool, Bool, Bool)] = [
        // §2.1: an empty list is true; §2.3 media types.
        ("", true, true, true),
        ("all", true, true, true),
        ("screen", true, true, true),
        ("print", false, false, false),
        ("not print", true, true, true),
        ("only screen", true, true, true),
        ("tv", false, false, false),
        ("not tv", true, true, true),
        ("print, screen", true, true, true),
        // §4.1 plain and min-/max- forms.
        ("(min-width: 768px)", true, false, true),
        ("(max-width: 767px)", false, true, false),
        ("(width: 1280px)", true, false, false),
        ("screen and (min-width: 1024px) and (max-width: 1300px)", true, false, false),
        ("(min-width: 48em)", true, false, true),
        ("(min-width: 48rem)", true, false, true),
        ("(min-height: 820px)", false, true, true),
        // §3 range syntax.
        ("(width >= 600px)", true, false, true),
        ("(600px <= width)", true, false, true),
        ("(400px <= width < 1300px)", true, false, false),
        ("(300px < width <= 390px)", false, true, false),
        ("(1300px > width > 1000px)", true, false, false),
        ("(width < 30em)", false, true, false),
        // §4.5, §4.6 aspect-ratio and orientation.
        ("(orientation: portrait)", false, true, false),
        ("(orientation: landscape)", true, false, true),
        ("(min-aspect-ratio: 16/10)", true, false, true),
        ("(aspect-ratio > 1)", true, false, true),
        // §5.1 resolution.
        ("(min-resolution: 2dppx)", false, true, true),
        ("(min-resolution: 192dpi)", false, true, true),
        ("(resolution >= 1.5x)", false, true, true),
        ("(-webkit-min-device-pixel-ratio: 2)", false, true, true),
        ("(max-resolution: 1dppx)", true, false, false),
        // Media Queries Level 5 §11 user preferences; §7 interaction.
        ("(prefers-color-scheme: dark)", false, false, true),
        ("(prefers-color-scheme: light)", true, true, false),
        ("(prefers-reduced-motion: reduce)", false, false, true),
        ("(prefers-reduced-motion)", false, false, true),
        ("(prefers-reduced-motion: no-preference)", true, true, false),
        ("(hover: hover)", true, false, true),
        ("(pointer: coarse)", false, true, false),
        // §3.1 not/and/or and parentheses.
        ("not all and (min-width: 768px)", false, true, false),
        ("(min-width: 768px) or (orientation: portrait)", true, true, true),
        ("not (min-width: 768px)", false, true, false),
        ("((min-width: 768px) and (max-width: 1300px)) or (max-width: 400px)", true, true, false),
        // §3.2 unknown features are unknown, so false at the top, and not unknown is unknown.
        ("(unknown-feature)", false, false, false),
        ("not (unknown-feature)", false, false, false),
        ("(unknown-feature) or (min-width: 1px)", true, true, true),
        ("(min-width: 768px) and (unknown-feature: 3)", false, false, false),
        ("screen and (fancy(1))", false, false, false),
        // §3.1 error handling: a bad query is `not all`, the others still count.
        ("(min-width: 768px) and or (max-width: 1px)", false, false, false),
        ("garbage!!, (min-width: 100px)", true, true, true),
        ("(min-orientation: portrait)", false, false, false),
        ("screen and (min-width: calc(700px + 10em))", true, false, true),
    ]

    @Test(arguments: table)
    func evaluatesQueries(_ row: (String, Bool, Bool, Bool)) {
        let (query, desktop, phone, laptop) = row
        let list = MediaQueryList(query)
        #expect(list.matches(.desktop) == desktop, "desktop: \(query)")
        #expect(list.matches(.phone) == phone, "phone: \(query)")
        #expect(list.matches(Self.darkLaptop) == laptop, "dark laptop: \(query)")
    }
}
