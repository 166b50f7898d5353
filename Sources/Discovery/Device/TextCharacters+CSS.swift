/// The characters that CSS values put on the page besides the document's text: the strings of
/// `content` (`::before`, `::after`, `::marker`), of `quotes`, and the markers of list styles.
extension TextCharacters {
    /// The quotation marks that `open-quote` and `close-quote` show with `quotes: auto`, which
    /// depend on the element's language (CSS Generated Content §4.1): those of the common languages.
    static let defaultQuotes = TextCharacters("\"'«»‹›“”„‘’‚「」『』")

    /// The markers of the list styles drawn as symbols (CSS Counter Styles §6.1): `disc`,
    /// `circle`, `square`, `disclosure-open` and `disclosure-closed`.
    static let symbolMarkers = TextCharacters("•◦▪▾▸")

    /// List styles whose markers are ASCII (CSS Counter Styles §6.1), or none, with the keywords a
    /// `list-style` shorthand or `counter()` holds beside them.
    private static let asciiListStyles: Set<String> = [
        "none", "decimal", "decimal-leading-zero", "lower-roman", "upper-roman", "lower-alpha", "upper-alpha",
        "lower-latin", "upper-latin", "inside", "outside", "inherit", "initial", "unset", "revert", "revert-layer",
    ]
    private static let symbolListStyles: Set<String> = [
        "disc", "circle", "square", "disclosure-open", "disclosure-closed",
    ]

    /// Adds what the value of a `content`, `quotes`, `list-style` or `list-style-type` declaration
    /// may show: its strings, quotation marks for `open-quote` and `close-quote`, and the markers of
    /// its list styles (`listStyle`: the value is a list style's). A counter style that is not known
    /// to be ASCII (`lower-greek`, an `@counter-style`'s) and `attr()`, whose attribute may hold any
    /// text, make it unbounded.
    mutating func insert(cssValue value: String, listStyle: Bool) {
        var cursor = CSSValueCursor(value)
        while let token = cursor.next() {
            switch token {
            case .string(let text):
                for scalar in text.unicodeScalars { insert(scalar.value) }
            case .ident(let name):
                let name = name.lowercased()
                if name == "open-quote" || name == "close-quote" {
                    formUnion(Self.defaultQuotes)
                } else if listStyle {
                    insert(listStyle: name)
                }
            case .function(let name):
                let arguments = cursor.takeBlock()
                switch name.lowercased() {
                case "attr":
                    insertEverything()
                case "counter", "counters":
                    // The first argument names the counter; a style, if any, is the last.
                    insert(0x30)
                    let parts = arguments.splitAtTopLevelCommas()
                    for case .string(let text) in parts.dropFirst().joined() {
                        for scalar in text.unicodeScalars { insert(scalar.value) }
                    }
                    if parts.count > (name.lowercased() == "counters" ? 2 : 1),
                        let style = parts.last?.first(where: { $0 != .whitespace })?.identifier
                    {
                        insert(listStyle: style.lowercased())
                    }
                default:
                    break
                }
            default:
                break
            }
        }
    }

    /// Adds the markers of the list style `name` (in lower case).
    private mutating func insert(listStyle name: String) {
        if Self.asciiListStyles.contains(name) {
            insert(0x30)
        } else if Self.symbolListStyles.contains(name) {
            formUnion(Self.symbolMarkers)
        } else {
            insertEverything()
        }
    }
}
