/// Kleene's three values, as Media Queries Level 4 §3.2 evaluates conditions and as selectors
/// over a document whose state (hover, focus, text) is not known are matched here.
enum Truth: Sendable, Hashable {
    case `true`, `false`, unknown

    init(_ value: Bool) { self = value ? .true : .false }

    static prefix func ! (value: Truth) -> Truth {
        switch value {
        case .true: .false
        case .false: .true
        case .unknown: .unknown
        }
    }

    static func && (left: Truth, right: Truth) -> Truth {
        if left == .false || right == .false { return .false }
        return left == .true && right == .true ? .true : .unknown
    }

    static func || (left: Truth, right: Truth) -> Truth {
        if left == .true || right == .true { return .true }
        return left == .false && right == .false ? .false : .unknown
    }
}

