import Foundation
import Testing

@testable import WebCache

/// The set of URLs a preload run has seen: 16 bytes a URL, and exact however many it holds.
@Suite struct URLKeySetTests {
    private static func key(_ index: Int) -> URLKey {
        URLKey("http://origin.test/item-\(index).png")
    }

    @Test func holdsEveryKeyAddedAcrossManyMergesAndRefusesEachASecondTime() {
        // Given keys enough for several merges into the sorted part, and some over
        var set = URLKeySet()
        let count = 5 * URLKeySet.recentLimit + 123
        var refusedFirstTime = 0
        for index in 0..<count where !set.insert(Self.key(index)) { refusedFirstTime += 1 }

        // When each is added again, and keys never added are looked up
        var acceptedSecondTime = 0
        for index in 0..<count where set.insert(Self.key(index)) { acceptedSecondTime += 1 }
        let missing = (count..<(count + 1_000)).filter { !set.contains(Self.key($0)) }.count

        // Then every key was taken once and only once, and only those added are in the set
        #expect(refusedFirstTime == 0)
        #expect(acceptedSecondTime == 0)
        #expect(set.count == count)
        #expect((0..<count).allSatisfy { set.contains(Self.key($0)) })
        #expect(missing == 1_000)
    }

    @Test func aCopyKeepsWhatItHeldWhenTheOriginalMerges() {
        // Given a set with sorted keys, and a copy of it
        var original = URLKeySet()
        for index in 0..<URLKeySet.recentLimit { original.insert(Self.key(index)) }
        let copy = original

        // When the original takes enough keys to merge again
        for index in URLKeySet.recentLimit..<(3 * URLKeySet.recentLimit) { original.insert(Self.key(index)) }

        // Then the copy holds what it held and nothing of what came later
        #expect(copy.count == URLKeySet.recentLimit)
        #expect(copy.contains(Self.key(0)) && copy.contains(Self.key(URLKeySet.recentLimit - 1)))
        #expect(!copy.contains(Self.key(URLKeySet.recentLimit)))
        #expect(!copy.contains(Self.key(3 * URLKeySet.recentLimit - 1)))
        #expect(original.contains(Self.key(3 * URLKeySet.recentLimit - 1)))
    }
}
