/// An `@supports` condition (CSS Conditional Rules Level 3 §2.1 and Level 4 §3; `font-tech()` and
/// `font-format()` of Level 5), evaluated for the engine of every device profile: a current Chromium.
///
/// ```swift
/// SupportsCondition.evaluate("(display: grid) and (not (display: -ms-grid))")   // .true
/// ```
///
/// No table can hold every property and value an engine knows, so the evaluation is three-valued
/// (``Truth``) and says *unknown* rather than guess: a declaration is true when its property is in
/// ``properties`` and each word of its value is a keyword, function or unit of the tables here
/// (for `display`, one of ``displayKeywords``); false when the property or a word of the value
/// carries another engine's prefix (`-ms-grid`, `-moz-appearance`), or when the value is empty;
/// unknown otherwise. `selector()` is true when the selector parses and every pseudo-class and
/// pseudo-element in it is one Chromium knows, false when the selector is rejected (another
/// engine's prefix). A function the grammar does not know (`<general-enclosed>`) and a prelude that
/// does not parse are unknown. The chooser drops only what a *false* condition holds.
enum SupportsCondition {
    /// The truth of the condition of an `@supports` prelude (the text after `@supports`).
    static func evaluate(_ text: String) -> Truth {
        var cursor = CSSValueCursor(text)
        guard let truth = condition(&cursor), cursor.peek == nil else { return .unknown }
        return truth
    }

    /// `not <in-parens> | <in-parens> [and <in-parens>]* | <in-parens> [or <in-parens>]*`;
    /// `nil` when it does not parse (`and` and `or` mixed without parentheses among them).
    private static func condition(_ cursor: inout CSSValueCursor) -> Truth? {
        if cursor.takeKeyword("not") { return inParens(&cursor).map { !$0 } }
        guard var truth = inParens(&cursor) else { return nil }
        var joiner: String?
        while let word = cursor.peek?.identifier?.lowercased(), word == "and" || word == "or" {
            if let joiner, joiner != word { return nil }
            joiner = word
            _ = cursor.next()
            guard let next = inParens(&cursor) else { return nil }
            truth = word == "and" ? truth && next : truth || next
        }
        return truth
    }

    /// `( <condition> ) | ( <declaration> ) | selector() | font-tech() | font-format() | <general-enclosed>`.
    private static func inParens(_ cursor: inout CSSValueCursor) -> Truth? {
        switch cursor.next() {
        case .openParen?:
            let inner = cursor.takeBlock()
            var nested = CSSValueCursor(inner)
            if let truth = condition(&nested), nested.peek == nil { return truth }
            return declaration(inner)
        case .function(let name)?:
            let tokens = cursor.takeBlock()
            let argument = tokens.filter { $0 != .whitespace }
            switch name {
            case "selector": return selector(tokens)
            case "font-tech":
                guard argument.count == 1, let tech = argument[0].identifier?.lowercased() else { return .false }
                return fontTechnologies.contains(tech) ? .true : .unknown
            case "font-format":
                guard argument.count == 1, let format = argument[0].identifier?.lowercased() else { return .false }
                return DeviceProfile.chromiumFontFormats.contains(format) ? .true : .unknown
            default: return .unknown
            }
        default:
            return nil
        }
    }

    /// `( <property>: <value> )`.
    private static func declaration(_ tokens: [CSSValueToken]) -> Truth {
        var cursor = CSSValueCursor(tokens)
        guard let rawName = cursor.next()?.identifier, cursor.next() == .colon else { return .unknown }
        let name = rawName.lowercased()
        if name.hasPrefix("--") { return .true }
        if isForeignPrefix(name) { return .false }
        var value = tokens[cursor.position...].filter { $0 != .whitespace }
        // `!important` is allowed in a declaration, and says nothing of support.
        if value.count >= 2, value[value.count - 2] == .delim("!"),
            value.last?.identifier?.lowercased() == "important"
        {
            value.removeLast(2)
        }
        guard !value.isEmpty else { return .false }
        var truth = Truth.true
        for token in value {
            switch token {
            case .ident(let word):
                let word = word.lowercased()
                if isForeignPrefix(word) { return .false }
                let known = name == "display" ? displayKeywords.contains(word) : keywords.contains(word)
                if !known { truth = .unknown }
            case .function(let function):
                if isForeignPrefix(function) { return .false }
                if !functions.contains(function) { truth = .unknown }
            case .dimension(_, let unit):
                if !units.contains(unit.lowercased()) { truth = .unknown }
            case .number, .percentage, .string, .hash, .comma, .delim, .openParen, .closeParen:
                continue
            default:
                truth = .unknown
            }
        }
        if name == "display", value.contains(where: { $0.identifier == nil }) { return .unknown }
        return properties.contains(name) ? truth : truth && .unknown
    }

    /// `selector(<complex-selector>)`: whether Chromium parses it.
    private static func selector(_ tokens: [CSSValueToken]) -> Truth {
        var cursor = CSSValueCursor(tokens)
        guard let parsed = SelectorParser.list(&cursor, forgiving: false) else { return .unknown }
        if parsed.contains(where: { $0.compounds.contains { $0.simple.contains(.invalid) } }) { return .false }
        var truth = Truth.true
        for index in tokens.indices where tokens[index] == .colon && index + 1 < tokens.count {
            if index > 0, tokens[index - 1] == .colon { continue }
            let isElement = tokens[index + 1] == .colon
            let nameIndex = isElement ? index + 2 : index + 1
            guard nameIndex < tokens.count else { return .unknown }
            let known: Bool
            switch tokens[nameIndex] {
            case .ident(let name):
                let name = name.lowercased()
                // `:before` and the other legacy pseudo-elements may be written with one colon.
                known = isElement ? pseudoElements.contains(name)
                    : pseudoClasses.contains(name) || ["before", "after", "first-line", "first-letter"].contains(name)
            case .function(let name):
                known = isElement ? ["part", "slotted", "highlight", "cue"].contains(name)
                    : pseudoClassFunctions.contains(name)
            default:
                return .unknown
            }
            if !known { truth = .unknown }
        }
        return truth
    }

    /// Another engine's vendor prefix, which Chromium rejects in a property, value or selector.
    private static func isForeignPrefix(_ name: String) -> Bool {
        name.hasPrefix("-moz-") || name.hasPrefix("-ms-") || name.hasPrefix("-o-") || name.hasPrefix("-khtml-")
    }

    // MARK: - What Chromium supports

    /// Properties Chromium has long supported, standard and `-webkit-` prefixed.
    private static let properties: Set<String> = [
        "accent-color", "align-content", "align-items", "align-self", "all", "anchor-name", "animation",
        "animation-composition", "animation-delay", "animation-direction", "animation-duration",
        "animation-fill-mode", "animation-iteration-count", "animation-name", "animation-play-state",
        "animation-range", "animation-timeline", "animation-timing-function", "appearance", "aspect-ratio",
        "backdrop-filter", "backface-visibility", "background", "background-attachment", "background-blend-mode",
        "background-clip", "background-color", "background-image", "background-origin", "background-position",
        "background-repeat", "background-size", "block-size", "border", "border-block", "border-block-end",
        "border-block-start", "border-bottom", "border-bottom-left-radius", "border-bottom-right-radius",
        "border-collapse", "border-color", "border-image", "border-inline", "border-inline-end",
        "border-inline-start", "border-left", "border-radius", "border-right", "border-spacing", "border-style",
        "border-top", "border-top-left-radius", "border-top-right-radius", "border-width", "bottom",
        "box-decoration-break", "box-shadow", "box-sizing", "break-after", "break-before", "break-inside",
        "caption-side", "caret-color", "clear", "clip", "clip-path", "color", "color-scheme", "column-count",
        "column-gap", "column-rule", "column-span", "column-width", "columns", "contain", "contain-intrinsic-size",
        "container", "container-name", "container-type", "content", "content-visibility", "counter-increment",
        "counter-reset", "counter-set", "cursor", "direction", "display", "empty-cells", "field-sizing", "fill",
        "filter", "flex", "flex-basis", "flex-direction", "flex-flow", "flex-grow", "flex-shrink", "flex-wrap",
        "float", "font", "font-display", "font-family", "font-feature-settings", "font-kerning",
        "font-optical-sizing", "font-palette", "font-size", "font-size-adjust", "font-stretch", "font-style",
        "font-synthesis", "font-variant", "font-variant-numeric", "font-variation-settings", "font-weight",
        "forced-color-adjust", "gap", "grid", "grid-area", "grid-auto-columns", "grid-auto-flow", "grid-auto-rows",
        "grid-column", "grid-column-end", "grid-column-start", "grid-row", "grid-row-end", "grid-row-start",
        "grid-template", "grid-template-areas", "grid-template-columns", "grid-template-rows", "height",
        "hyphens", "image-rendering", "inline-size", "inset", "inset-block", "inset-inline", "isolation",
        "justify-content", "justify-items", "justify-self", "left", "letter-spacing", "line-break",
        "line-height", "list-style", "list-style-image", "list-style-position", "list-style-type", "margin",
        "margin-block", "margin-block-end", "margin-block-start", "margin-bottom", "margin-inline",
        "margin-inline-end", "margin-inline-start", "margin-left", "margin-right", "margin-top", "mask",
        "mask-image", "mask-position", "mask-repeat", "mask-size", "max-block-size", "max-height",
        "max-inline-size", "max-width", "min-block-size", "min-height", "min-inline-size", "min-width",
        "mix-blend-mode", "object-fit", "object-position", "offset", "offset-path", "opacity", "order",
        "orphans", "outline", "outline-color", "outline-offset", "outline-style", "outline-width", "overflow",
        "overflow-anchor", "overflow-clip-margin", "overflow-wrap", "overflow-x", "overflow-y",
        "overscroll-behavior", "padding", "padding-block", "padding-block-end", "padding-block-start",
        "padding-bottom", "padding-inline", "padding-inline-end", "padding-inline-start", "padding-left",
        "padding-right", "padding-top", "page-break-after", "page-break-before", "page-break-inside",
        "paint-order", "perspective", "perspective-origin", "place-content", "place-items", "place-self",
        "pointer-events", "position", "position-anchor", "position-area", "print-color-adjust", "quotes",
        "resize", "right", "rotate", "row-gap", "scale", "scroll-behavior", "scroll-margin", "scroll-padding",
        "scroll-snap-align", "scroll-snap-stop", "scroll-snap-type", "scroll-timeline", "scrollbar-color",
        "scrollbar-gutter", "scrollbar-width", "shape-outside", "stroke", "stroke-width", "tab-size",
        "table-layout", "text-align", "text-align-last", "text-decoration", "text-decoration-color",
        "text-decoration-line", "text-decoration-style", "text-decoration-thickness", "text-emphasis",
        "text-indent", "text-orientation", "text-overflow", "text-rendering", "text-shadow", "text-transform",
        "text-underline-offset", "text-underline-position", "text-wrap", "top", "touch-action", "transform",
        "transform-origin", "transform-style", "transition", "transition-behavior", "transition-delay",
        "transition-duration", "transition-property", "transition-timing-function", "translate", "unicode-bidi",
        "user-select", "vertical-align", "view-timeline", "view-transition-name", "visibility", "white-space",
        "widows", "width", "will-change", "word-break", "word-spacing", "writing-mode", "z-index", "zoom",
        "-webkit-appearance", "-webkit-background-clip", "-webkit-box-orient", "-webkit-box-reflect",
        "-webkit-font-smoothing", "-webkit-line-clamp", "-webkit-mask", "-webkit-mask-image",
        "-webkit-overflow-scrolling", "-webkit-tap-highlight-color", "-webkit-text-fill-color",
        "-webkit-text-size-adjust", "-webkit-text-stroke", "-webkit-user-select", "-webkit-box-shadow",
        "-webkit-transform", "-webkit-transition", "-webkit-animation", "-webkit-filter", "-webkit-clip-path",
    ]

    /// The values of `display` (CSS Display Level 3 §2, and the legacy `-webkit-box`).
    private static let displayKeywords: Set<String> = [
        "block", "inline", "flow", "flow-root", "table", "flex", "grid", "ruby", "math", "list-item",
        "inline-block", "inline-table", "inline-flex", "inline-grid", "contents", "none", "table-row-group",
        "table-header-group", "table-footer-group", "table-row", "table-cell", "table-column-group",
        "table-column", "table-caption", "ruby-text", "-webkit-box", "-webkit-inline-box",
        "inherit", "initial", "unset", "revert", "revert-layer",
    ]

    /// Keywords of other properties' values.
    private static let keywords: Set<String> = [
        "inherit", "initial", "unset", "revert", "revert-layer", "auto", "none", "normal", "hidden", "visible",
        "clip", "scroll", "static", "relative", "absolute", "fixed", "sticky", "block", "inline", "flex", "grid",
        "subgrid", "row", "column", "row-reverse", "column-reverse", "wrap", "nowrap", "wrap-reverse", "dense",
        "start", "end", "center", "left", "right", "top", "bottom", "stretch", "baseline", "space-between",
        "space-around", "space-evenly", "flex-start", "flex-end", "self-start", "self-end", "safe", "unsafe",
        "first", "last", "min-content", "max-content", "fit-content", "contain", "cover", "fill", "scale-down",
        "repeat", "no-repeat", "repeat-x", "repeat-y", "space", "round", "border-box", "padding-box",
        "content-box", "text", "solid", "dashed", "dotted", "double", "groove", "ridge", "inset", "outset",
        "transparent", "currentcolor", "black", "white", "red", "green", "blue", "gray", "grey", "pointer",
        "default", "bold", "bolder", "lighter", "italic", "oblique", "serif", "sans-serif", "monospace",
        "system-ui", "cursive", "fantasy", "uppercase", "lowercase", "capitalize", "underline", "overline",
        "line-through", "ellipsis", "balance", "pretty", "stable", "both-edges", "smooth", "mandatory",
        "proximity", "x", "y", "both", "horizontal", "vertical", "size", "inline-size", "layout", "paint",
        "style", "strict", "content", "light", "dark", "only", "ease", "ease-in", "ease-out", "ease-in-out",
        "linear", "infinite", "alternate", "forwards", "backwards", "running", "paused", "all", "allow-discrete",
        "preserve-3d", "flat", "multiply", "screen", "overlay", "darken", "lighten", "isolate", "manipulation",
        "pan-x", "pan-y", "break-word", "break-all", "keep-all", "anywhere", "pre", "pre-wrap", "pre-line",
        "break-spaces", "ltr", "rtl", "horizontal-tb", "vertical-rl", "vertical-lr", "swap", "block-start",
        "optional", "fallback", "thin", "medium", "thick", "large", "small", "x-large", "x-small", "larger",
        "smaller", "disc", "circle", "square", "decimal", "outside", "inside", "from-font", "under",
        "srgb", "display-p3", "in", "oklch", "oklab", "shorter", "longer", "to", "at", "span", "collapse",
        "separate", "avoid", "page", "always", "upright", "mixed", "sideways", "exact", "economy", "manual",
        "pixelated", "crisp-edges", "optimizespeed", "optimizelegibility", "geometricprecision", "antialiased",
        "touch", "allow-keywords", "from", "self", "root", "nearest", "farthest-side", "closest-side",
        "farthest-corner", "closest-corner", "ellipse", "-webkit-box", "-webkit-inline-box",
    ]

    /// Functions of values.
    private static let functions: Set<String> = [
        "calc", "min", "max", "clamp", "var", "env", "attr", "rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch",
        "oklab", "oklch", "color", "color-mix", "light-dark", "url", "image-set", "-webkit-image-set",
        "linear-gradient", "radial-gradient", "conic-gradient", "repeating-linear-gradient",
        "repeating-radial-gradient", "repeating-conic-gradient", "blur", "brightness", "contrast",
        "drop-shadow", "grayscale", "hue-rotate", "invert", "opacity", "saturate", "sepia", "translate",
        "translatex", "translatey", "translatez", "translate3d", "rotate", "rotatex", "rotatey", "rotatez",
        "rotate3d", "scale", "scalex", "scaley", "scalez", "scale3d", "skew", "skewx", "skewy", "matrix",
        "matrix3d", "perspective", "repeat", "minmax", "fit-content", "cubic-bezier", "steps", "counter",
        "counters", "round", "mod", "rem", "abs", "sign", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
        "pow", "sqrt", "hypot", "log", "exp", "scroll", "view", "anchor", "anchor-size", "inset", "circle",
        "ellipse", "polygon", "path", "format", "local", "element", "cross-fade", "-webkit-gradient",
    ]

    /// Units of dimensions.
    private static let units: Set<String> = [
        "px", "em", "rem", "ex", "rex", "ch", "rch", "cap", "rcap", "ic", "ric", "lh", "rlh", "vw", "vh", "vi",
        "vb", "vmin", "vmax", "svw", "svh", "lvw", "lvh", "dvw", "dvh", "svi", "svb", "lvi", "lvb", "dvi", "dvb",
        "svmin", "svmax", "lvmin", "lvmax", "dvmin", "dvmax", "cqw", "cqh", "cqi", "cqb", "cqmin", "cqmax",
        "cm", "mm", "q", "in", "pt", "pc", "deg", "rad", "grad", "turn", "s", "ms", "hz", "khz", "dpi", "dpcm",
        "dppx", "x", "fr",
    ]

    /// Pseudo-classes Chromium knows (Selectors Level 4 and HTML).
    private static let pseudoClasses: Set<String> = [
        "root", "scope", "link", "any-link", "visited", "hover", "active", "focus", "focus-within",
        "focus-visible", "target", "checked", "disabled", "enabled", "indeterminate", "default", "required",
        "optional", "valid", "invalid", "user-valid", "user-invalid", "in-range", "out-of-range", "read-only",
        "read-write", "placeholder-shown", "autofill", "-webkit-autofill", "empty", "first-child", "last-child",
        "only-child", "first-of-type", "last-of-type", "only-of-type", "fullscreen", "modal", "open",
        "popover-open", "defined", "host", "picture-in-picture", "playing", "paused", "-webkit-any-link",
    ]

    /// Functional pseudo-classes Chromium knows.
    private static let pseudoClassFunctions: Set<String> = [
        "is", "where", "not", "has", "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type", "lang",
        "dir", "host", "host-context", "state", "-webkit-any",
    ]

    /// Pseudo-elements Chromium knows.
    private static let pseudoElements: Set<String> = [
        "before", "after", "first-line", "first-letter", "marker", "placeholder", "selection", "backdrop",
        "file-selector-button", "cue", "target-text", "spelling-error", "grammar-error", "view-transition",
        "-webkit-scrollbar", "-webkit-scrollbar-thumb", "-webkit-scrollbar-track", "-webkit-input-placeholder",
    ]

    /// `font-tech()` technologies Chromium supports (CSS Fonts Level 4 §4.3.1).
    static let fontTechnologies: Set<String> = [
        "variations", "palettes", "color-colrv0", "color-colrv1", "color-cbdt", "features-opentype",
    ]
}
