/// Matches selectors against a ``DocumentTree`` (Selectors Level 4 §3.4 "Evaluating a selector"),
/// right to left, with Kleene's three values for what the tree cannot tell.
enum SelectorMatcher {
    /// Whether some element of `tree` matches some selector of `list`: `.unknown` when that depends
    /// on state the scanner cannot see, or when the list does not parse.
    static func anyElement(of tree: DocumentTree, matches list: SelectorList) -> Truth {
        guard let selectors = list.selectors else { return .unknown }
        var result = Truth.false
        for selector in selectors {
            guard let last = selector.compounds.last else { continue }
            let id = last.simple.lazy.compactMap { if case .id(let id) = $0 { id } else { nil } }.first
            let className = last.simple.lazy
                .compactMap { if case .className(let name) = $0 { name } else { nil } }.first
            for index in tree.candidates(id: id, className: className, name: last.name) {
                result = result || matches(selector, at: index, in: tree)
                if result == .true { return .true }
            }
        }
        return result
    }

    /// Whether the element at `index` matches the complex selector.
    static func matches(_ selector: ComplexSelector, at index: Int, in tree: DocumentTree) -> Truth {
        matches(selector, compound: selector.compounds.count - 1, at: index, in: tree)
    }

    private static func matches(_ selector: ComplexSelector, compound: Int, at index: Int, in tree: DocumentTree)
        -> Truth
    {
        var result = matches(selector.compounds[compound], at: index, in: tree)
        guard result != .false, compound > 0 else { return result }
        let element = tree.elements[index]
        let next = compound - 1
        var rest = Truth.false
        switch selector.combinators[next] {
        case .child:
            if let parent = element.parent { rest = matches(selector, compound: next, at: parent, in: tree) }
        case .descendant:
            var ancestor = element.parent
            while let current = ancestor, rest != .true {
                rest = rest || matches(selector, compound: next, at: current, in: tree)
                ancestor = tree.elements[current].parent
            }
        case .nextSibling:
            if let parent = element.parent, element.position > 0 {
                let previous = tree.elements[parent].children[element.position - 1]
                rest = matches(selector, compound: next, at: previous, in: tree)
            }
        case .subsequentSibling:
            if let parent = element.parent {
                for sibling in tree.elements[parent].children[..<element.position] where rest != .true {
                    rest = rest || matches(selector, compound: next, at: sibling, in: tree)
                }
            }
        }
        result = result && rest
        return result
    }

    private static func matches(_ compound: CompoundSelector, at index: Int, in tree: DocumentTree) -> Truth {
        let element = tree.elements[index]
        if let name = compound.name, element.name != name { return .false }
        var result = Truth.true
        for simple in compound.simple {
            result = result && matches(simple, at: index, in: tree)
            if result == .false { return .false }
        }
        return result
    }

    private static func matches(_ simple: SimpleSelector, at index: Int, in tree: DocumentTree) -> Truth {
        let element = tree.elements[index]
        switch simple {
        case .id(let id):
            return Truth(element.id == id)
        case .className(let name):
            return Truth(element.classes.contains(name))
        case .attribute(let name, let match, let value, let caseInsensitive):
            guard let actual = element.kept[name] else {
                return tree.knownAttributes.contains(name) ? .false : .unknown
            }
            return Truth(attribute(actual, match, value, caseInsensitive: caseInsensitive))
        case .is(let selectors):
            return selectors.reduce(Truth.false) { $0 || matches($1, at: index, in: tree) }
        case .not(let selectors):
            return !selectors.reduce(Truth.false) { $0 || matches($1, at: index, in: tree) }
        case .has(let selectors):
            return selectors.reduce(Truth.false) { $0 || has($1, anchor: index, in: tree) }
        case .nth(let kind, let a, let b, let of):
            return nth(kind, a: a, b: b, of: of, at: index, in: tree)
        case .root:
            return Truth(index == 0)
        case .anchor(let anchor):
            return Truth(index == anchor)
        case .link:
            return Truth(["a", "area"].contains(element.name) && element.kept[.href] != nil)
        case .pseudoElement:
            return .true
        case .undecided:
            return .unknown
        case .invalid:
            return .false
        }
    }

    private static func attribute(_ actual: String, _ match: SimpleSelector.AttributeMatch, _ value: String,
                                  caseInsensitive: Bool) -> Bool
    {
        let actual = caseInsensitive ? actual.lowercased() : actual
        let value = caseInsensitive ? value.lowercased() : value
        switch match {
        case .exists: return true
        case .equals: return actual == value
        case .includes:
            let words = actual.split(whereSeparator: { " \t\n\r\u{0C}".contains($0) })
            return !value.isEmpty && words.contains { $0 == value }
        case .dashMatch: return actual == value || actual.hasPrefix(value + "-")
        case .prefix: return !value.isEmpty && actual.hasPrefix(value)
        case .suffix: return !value.isEmpty && actual.hasSuffix(value)
        case .substring: return !value.isEmpty && actual.contains(value)
        }
    }

    /// `:has()` with a relative selector anchored at `anchor` (§4.5): some element matches the
    /// selector written out as `anchor <leading combinator> selector`.
    private static func has(_ selector: ComplexSelector, anchor: Int, in tree: DocumentTree) -> Truth {
        let leading = selector.leading ?? .descendant
        var anchored = selector
        anchored.compounds.insert(CompoundSelector(name: nil, simple: [.anchor(anchor)]), at: 0)
        anchored.combinators.insert(leading, at: 0)
        anchored.leading = nil
        let scope: Int?
        switch leading {
        case .child, .descendant: scope = anchor
        case .nextSibling, .subsequentSibling: scope = tree.elements[anchor].parent
        }
        guard let scope else { return .false }
        var result = Truth.false
        for target in descendants(of: scope, in: tree) where result != .true {
            result = result || matches(anchored, at: target, in: tree)
        }
        return result
    }

    private static func descendants(of index: Int, in tree: DocumentTree) -> [Int] {
        var found: [Int] = []
        var stack = tree.elements[index].children.reversed() as [Int]
        while let next = stack.popLast() {
            found.append(next)
            stack.append(contentsOf: tree.elements[next].children.reversed())
        }
        return found
    }

    /// `:nth-child(an+b [of S])` and its kin (§14.4).
    private static func nth(
        _ kind: SimpleSelector.Nth, a: Int, b: Int, of: [ComplexSelector]?, at index: Int, in tree: DocumentTree
    ) -> Truth {
        let element = tree.elements[index]
        let siblings = element.parent.map { tree.elements[$0].children } ?? [index]
        var unknown = false
        func counts(_ sibling: Int) -> Bool {
            switch kind {
            case .ofType, .lastOfType: return tree.elements[sibling].name == element.name
            case .child, .lastChild:
                guard let of else { return true }
                let truth = of.reduce(Truth.false) { $0 || matches($1, at: sibling, in: tree) }
                if truth == .unknown { unknown = true }
                return truth == .true
            }
        }
        if let of, of.reduce(Truth.false, { $0 || matches($1, at: index, in: tree) }) != .true { return .false }
        let range = kind == .child || kind == .ofType
            ? Array(siblings[..<element.position]) : Array(siblings[(element.position + 1)...])
        let position = range.count(where: counts) + 1
        if unknown { return .unknown }
        if a == 0 { return Truth(position == b) }
        let steps = position - b
        return Truth(steps % a == 0 && steps / a >= 0)
    }
}
