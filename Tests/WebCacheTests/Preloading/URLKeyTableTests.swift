import Foundation
import Testing
import WebCacheTestSupport

@testable import WebCache

/// The preload schedule's hash table keyed by URL keys, compared operation by operation with a
/// Swift dictionary doing the same.
@Suite struct URLKeyTableTests {
    private static func key(_ index: Int) -> URLKey {
        URLKey("http://origin.test/item-\(index).png")
    }

    @Test(arguments: [1, 2, 3])
    func randomInsertsUpdatesRemovalsAndLookUpsAnswerAsADictionaryDoes(seed: UInt64) {
        // Given a table and a dictionary, and few enough distinct keys that they come back often
        var generator = SeededGenerator(seed: seed)
        var table = URLKeyTable<Int>()
        var reference: [URLKey: Int] = [:]
        /// The first steps where the two disagreed, and how many did.
        var mismatches: [String] = []
        var mismatchCount = 0
        func mismatch(_ what: String) {
            mismatchCount += 1
            if mismatches.count < 5 { mismatches.append(what) }
        }

        // When the same random operations run on both, the table growing and shrinking many times
        for step in 0..<40_000 {
            let key = Self.key(Int.random(in: 0..<600, using: &generator))
            switch Int.random(in: 0..<6, using: &generator) {
            case 0, 1:
                table[key] = step
                reference[key] = step
            case 2:
                if table.removeValue(forKey: key) != reference.removeValue(forKey: key) {
                    mismatch("removal at step \(step)")
                }
            case 3:
                table[key] = nil
                reference[key] = nil
            case 4:
                table.update(key, default: 0) { $0 += 1 }
                reference[key, default: 0] += 1
            default:
                if table[key] != reference[key] || table.contains(key) != (reference[key] != nil) {
                    mismatch("look-up at step \(step)")
                }
            }
            if table.count != reference.count { mismatch("count at step \(step)") }
        }

        // Then every answer agreed, and the table holds exactly the dictionary's keys and values
        #expect(mismatchCount == 0, "\(mismatchCount) disagreements, the first at \(mismatches)")
        #expect(Set(table.allKeys).symmetricDifference(reference.keys).isEmpty)
        #expect(reference.allSatisfy { table[$0.key] == $0.value })
        #expect((600..<700).allSatisfy { !table.contains(Self.key($0)) })
    }

    @Test func aSetOfKeysTakesEachOnceAndLetsItGo() {
        // Given keys enough to grow the table several times
        var set = URLKeyTable<Void>()
        let keys = (0..<5_000).map(Self.key)
        let firstTime = keys.filter { set.insert($0) }.count
        let secondTime = keys.filter { set.insert($0) }.count

        // When every other one is removed, twice
        let removed = stride(from: 0, to: keys.count, by: 2).filter { set.remove(keys[$0]) }.count
        let removedAgain = stride(from: 0, to: keys.count, by: 2).filter { set.remove(keys[$0]) }.count

        // Then each was taken and removed once, and the others stay
        #expect(firstTime == keys.count && secondTime == 0)
        #expect(removed == keys.count / 2 && removedAgain == 0)
        #expect(set.count == keys.count / 2)
        #expect(keys.indices.allSatisfy { set.contains(keys[$0]) == ($0 % 2 == 1) })
        set.removeAll()
        #expect(set.isEmpty && !set.contains(keys[1]))
    }
}
