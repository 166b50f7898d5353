import Testing

@testable import WebCache

/// The queue under the preload's host queues and its message queue.
@Suite struct FirstInFirstOutTests {
    @Test func takesElementsInTheOrderTheyCame() {
        var queue = FirstInFirstOut<Int>()
        #expect(queue.popFirst() == nil)
        for value in 0..<5 { queue.append(value) }
        #expect(queue.popFirst() == 0)
        queue.append(5)
        var taken: [Int] = []
        while let value = queue.popFirst() { taken.append(value) }
        #expect(taken == [1, 2, 3, 4, 5])
        #expect(queue.isEmpty && queue.count == 0)
    }

    @Test func aQueueThatNeverEmptiesHoldsWhatWaitsAndNoMore() {
        // Given a queue with a standing backlog of 100, added to as fast as it is taken from (as a
        // warm preload's host queue is, whose items are answered from the store as soon as they come)
        var queue = FirstInFirstOut<Int>()
        for value in 0..<100 { queue.append(value) }
        var outOfOrder = 0
        var mostHeld = 0
        // When 100,000 elements pass through it
        for value in 100..<100_100 {
            queue.append(value)
            if queue.popFirst() != value - 100 { outOfOrder += 1 }
            mostHeld = max(mostHeld, queue.held)
        }
        // Then they came out in order, and it never held more than about twice its backlog (not
        // every element that passed)
        #expect(outOfOrder == 0)
        #expect(queue.count == 100)
        #expect(mostHeld <= 2 * 100 + 64)
    }
}
