import Foundation
import Testing

@testable import WebCache

/// The rules of ``AnswerMemory`` alone, with answers made up for them: when a kept answer may serve,
/// its age, what goes when the memory is full, and whose note is kept.
struct AnswerMemoryTests {
    final class Answer: RememberedAnswer {
        let freshness: StoredAnswer.Freshness
        let changeCount: UInt64
        let bodySize: Int

        init(freshFor lifetime: TimeInterval = 600, receivedAt received: Date = start, ageWhenReceived: TimeInterval = 5,
             changeCount: UInt64 = 7, bodySize: Int = 100) {
            freshness = StoredAnswer.Freshness(freshUntil: received.addingTimeInterval(lifetime - ageWhenReceived),
                                               responseTime: received, ageWhenReceived: ageWhenReceived)
            self.changeCount = changeCount
            self.bodySize = bodySize
        }
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anAnswerServesWhileFreshAndTheStoreUnchanged() {
        let memory = AnswerMemory<Answer, Never>(capacity: 1 << 20)
        let answer = Answer()
        memory.keep(answer, for: "a")
        let found = memory.find("a", changeCount: 7, now: Self.start.addingTimeInterval(10))
        #expect(found?.answer === answer)
        #expect(found?.age == 15)
        // Fresh until 595 s after receipt (600 s of lifetime, 5 s old when received).
        #expect(memory.find("a", changeCount: 7, now: Self.start.addingTimeInterval(594.5))?.age == 599.5)
        #expect(memory.find("a", changeCount: 7, now: Self.start.addingTimeInterval(595)) == nil)
        // Gone once found stale, also for a time before that.
        #expect(memory.find("a", changeCount: 7, now: Self.start) == nil)
        #expect(memory.bytes == 0)
    }

    @Test func aChangedStoreOrAClockBeforeTheReceiptEndsAnAnswer() {
        let memory = AnswerMemory<Answer, Never>(capacity: 1 << 20)
        memory.keep(Answer(), for: "a")
        #expect(memory.find("a", changeCount: 8, now: Self.start) == nil)
        #expect(memory.answer(for: "a") == nil)
        memory.keep(Answer(), for: "b")
        #expect(memory.find("b", changeCount: 7, now: Self.start.addingTimeInterval(-1)) == nil)
        #expect(memory.answer(for: "b") == nil)
        #expect(memory.find("c", changeCount: 7, now: Self.start) == nil)
    }

    @Test func theLeastRecentlyServedGoWhenTheMemoryIsFull() {
        let overhead = AnswerMemory<Answer, Never>.slotOverhead
        // Room for eight answers of 1,000 bytes and their overhead.
        let memory = AnswerMemory<Answer, Never>(capacity: 8 * (1_000 + overhead))
        for index in 0..<8 { memory.keep(Answer(bodySize: 1_000), for: "\(index)") }
        #expect(memory.bytes == 8 * (1_000 + overhead))
        // Served last: 0 and 1 are used again before the ninth comes.
        _ = memory.find("0", changeCount: 7, now: Self.start)
        _ = memory.find("1", changeCount: 7, now: Self.start)
        memory.keep(Answer(bodySize: 1_000), for: "8")
        // Down to seven eighths of the capacity: the two served longest ago go.
        #expect((0..<9).filter { memory.answer(for: "\($0)") == nil } == [2, 3])
        #expect(memory.bytes == 7 * (1_000 + overhead))
    }

    @Test func aBodyOverAnEighthIsNotKeptAndAKeyKeepsOneAnswer() {
        let memory = AnswerMemory<Answer, Never>(capacity: 8_000)
        #expect(memory.admits(size: 1_000))
        #expect(!memory.admits(size: 1_001))
        memory.keep(Answer(bodySize: 1_001), for: "a")
        #expect(memory.answer(for: "a") == nil)
        memory.keep(Answer(bodySize: 10), for: "a")
        let second = Answer(bodySize: 20)
        memory.keep(second, for: "a")
        #expect(memory.answer(for: "a") === second)
        #expect(memory.bytes == 20 + AnswerMemory<Answer, Never>.slotOverhead)
    }

    @Test func aNoteStaysWithTheAnswerItWasMadeFor() {
        let memory = AnswerMemory<Answer, String>(capacity: 1 << 20)
        let first = Answer()
        memory.keep(first, for: "a")
        memory.note("made for the first", for: "a", answer: first)
        #expect(memory.find("a", changeCount: 7, now: Self.start)?.note == "made for the first")
        let second = Answer()
        memory.keep(second, for: "a")
        #expect(memory.find("a", changeCount: 7, now: Self.start)?.note == nil)
        // A note made for an answer that was replaced meanwhile is dropped.
        memory.note("late", for: "a", answer: first)
        #expect(memory.find("a", changeCount: 7, now: Self.start)?.note == nil)
    }
}
