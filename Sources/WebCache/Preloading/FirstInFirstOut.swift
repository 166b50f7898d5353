/// A first-in-first-out queue over an array: taking the first element moves an index, and the
/// elements taken are let go once they are half of the array, so that a queue that is added to as
/// fast as it is taken from (and so never empties) holds what waits in it and no more.
struct FirstInFirstOut<Element> {
    private var elements: [Element] = []
    /// The index of the first element not yet taken.
    private var head = 0

    /// Whether nothing waits.
    var isEmpty: Bool { head == elements.count }

    /// How many elements wait.
    var count: Int { elements.count - head }

    /// How many elements the array holds: those that wait, and those taken but not yet let go.
    var held: Int { elements.count }

    mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// Takes the first element, or `nil` when none waits.
    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}
