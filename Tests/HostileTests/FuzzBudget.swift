import Foundation

/// How much fuzzing a run does. The test suite uses the base budgets; `scripts/fuzz.sh` raises them
/// with `WEBCACHE_FUZZ_SCALE` (a multiplier) and can pick another `WEBCACHE_FUZZ_SEED`.
enum FuzzBudget {
    /// The multiplier of every base budget: `WEBCACHE_FUZZ_SCALE`, 1 when unset or invalid.
    static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["WEBCACHE_FUZZ_SCALE"], let value = Int(text),
            value > 0
        else { return 1 }
        return value
    }()

    /// The first seed: `WEBCACHE_FUZZ_SEED`, or a fixed value so that runs repeat.
    static let seed: UInt64 = {
        guard let text = ProcessInfo.processInfo.environment["WEBCACHE_FUZZ_SEED"], let value = UInt64(text) else {
            return 0x5EED_CAFE
        }
        return value
    }()

    /// The number of cases for a test whose base budget is `base`.
    static func cases(_ base: Int) -> Int {
        base * scale
    }
}
