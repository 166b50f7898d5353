import Testing

@testable import Discovery

/// `@supports` conditions (CSS Conditional Rules Level 3 §2.1, Level 4 §3), by table, as a current
/// Chromium evaluates them; what the tables cannot decide is unknown, never false.
struct SupportsConditionTests {
    static let table: [(String, Truth)] = [
        ("(display: grid)", .true),
        ("(display:flex)", .true),
        ("not (display: grid)", .false),
        ("(gap: 1rem)", .true),
        ("(aspect-ratio: 16 / 9)", .true),
        ("(backdrop-filter: blur(4px))", .true),
        ("(position: sticky) or (position: -webkit-sticky)", .true),
        ("(-webkit-appearance: none)", .true),
        ("(-moz-appearance: none)", .false),
        ("(display: -ms-grid)", .false),
        ("(-ms-grid-columns: 1fr 1fr)", .false),
        ("(display: grid) and (not (display: inline-grid))", .false),
        ("((display: grid) and (gap: 1px)) or (float: left)", .true),
        ("(display: grid !important)", .true),
        ("(--brand: red)", .true),
        ("(display: )", .false),
        ("selector(:has(a))", .true),
        ("selector(a > b:hover)", .true),
        ("selector(:-moz-focusring)", .false),
        ("font-tech(color-colrv1) and font-format(woff2)", .true),
        // What the tables do not know, or what does not parse, is undecided.
        ("(frobnicate: 1)", .unknown),
        ("(display: masonry)", .unknown),
        ("(color: not-a-color)", .unknown),
        ("selector(:frobnicate)", .unknown),
        ("not (frobnicate: 1)", .unknown),
        ("(display: grid) and (display: flex) or (gap: 1px)", .unknown),
        ("media(min-width: 1px)", .unknown),
        ("(frobnicate: 1) or (display: grid)", .true),
        ("(frobnicate: 1) and (display: -ms-grid)", .false),
    ]

    @Test(arguments: table)
    func evaluatesConditions(_ row: (String, Truth)) {
        #expect(SupportsCondition.evaluate(row.0) == row.1, "\(row.0)")
    }
}
