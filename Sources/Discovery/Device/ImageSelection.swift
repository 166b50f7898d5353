import FoundationEssentials
import HTTPCore

/// Which image a browser on a device takes from an ``ImageSourceSet``, an `image-set()`, and
/// how large it lays an image out by `sizes`: the HTML standard's rules, with Chromium's choices
/// where the standard leaves one to the browser.
enum ImageSelection {
    /// The alternative and candidate chosen; `candidate == alternative.candidates.count` is the fallback.
    struct Pick: Sendable, Hashable {
        var alternative: Int
        var candidate: Int
    }

    /// The image a browser on `device` fetches from `set`, or `nil` when it fetches none (a preload
    /// whose `media` does not match, or no candidate at all).
    ///
    /// HTML §4.8.4.3.7 "Selecting an image source" and "update the source set": the first
    /// `<source>` with candidates whose `media` matches and whose `type` the device decodes, else
    /// the `<img>`; then the candidate for the device's density.
    static func pick(in set: ImageSourceSet, for device: DeviceProfile) -> Pick? {
        for (index, alternative) in set.alternatives.enumerated() {
            let isLast = index == set.alternatives.count - 1
            if !isLast && alternative.candidates.isEmpty { continue }
            if let media = alternative.media, !MediaQueryList(media).matches(device) { continue }
            if let type = alternative.type, !decodes(type, device) { continue }
            guard let candidate = candidate(in: alternative, for: device) else { return nil }
            return Pick(alternative: index, candidate: candidate)
        }
        return nil
    }

    /// Whether `device` decodes images of `type` (a MIME type, parameters ignored).
    static func decodes(_ type: String, _ device: DeviceProfile) -> Bool {
        let essence = type.split(separator: ";").first.map(String.init) ?? ""
        let trimmed = essence.trimmingWhitespace().lowercased()
        return trimmed.isEmpty || device.imageTypes.contains(trimmed)
    }

    /// The index of the candidate chosen from one element's `srcset`, `sizes` and `src`; the
    /// candidates' count stands for the `src` fallback.
    ///
    /// HTML §4.8.4.3.12 "Normalizing the source densities" (a `w` descriptor's density is its width
    /// over the source size; `src` is a 1x candidate unless `srcset` has one, or has `w`
    /// descriptors), then Chromium's choice (`PickBestImageCandidate`, verified against Chromium
    /// by the device tests): candidates sorted by density, the first of each density kept, and the
    /// smallest density at least the device's pixel ratio taken, else the largest.
    static func candidate(in alternative: ImageSourceSet.Alternative, for device: DeviceProfile) -> Int? {
        let sourceSize = self.sourceSize(alternative.sizes, for: device)
        var densities: [(index: Int, density: Double)] = []
        var hasWidths = false
        for (index, candidate) in alternative.candidates.enumerated() {
            switch candidate.descriptor {
            case .none: densities.append((index, 1))
            case .density(let density): densities.append((index, density))
            case .width(let width):
                hasWidths = true
                densities.append((index, Double(width) / max(sourceSize, 0.000_001)))
            }
        }
        if let fallback = alternative.fallback, !fallback.isEmpty, !hasWidths {
            densities.append((alternative.candidates.count, 1))
        }
        return densest(densities, for: device)
    }

    /// The source size in CSS pixels that `sizes` gives on `device` (HTML §4.8.4.3.11 "Parsing a
    /// sizes attribute"): the size of the first entry whose media condition matches (the last entry
    /// may have none); entries that do not parse are skipped; `100vw` when none applies.
    static func sourceSize(_ sizes: String?, for device: DeviceProfile) -> Double {
        let viewportWidth = Double(device.viewportWidth)
        guard let sizes else { return viewportWidth }
        for entry in CSSValueTokenizer.tokens(sizes).splitAtTopLevelCommas() {
            var tokens = entry
            while tokens.last == .whitespace { tokens.removeLast() }
            while tokens.first == .whitespace { tokens.removeFirst() }
            guard let start = lastComponentStart(tokens) else { continue }
            let sizeTokens = Array(tokens[start...])
            guard let size = CSSLength.resolve(sizeTokens, device: device), size >= 0 else { continue }
            let conditionTokens = Array(tokens[..<start])
            if conditionTokens.allSatisfy({ $0 == .whitespace }) { return size }
            guard let condition = MediaQueryList.condition(conditionTokens) else { continue }
            if condition.evaluate(device) == .true { return size }
        }
        return viewportWidth
    }

    /// Where the last component value of `tokens` starts: a token, or a function with its arguments.
    private static func lastComponentStart(_ tokens: [CSSValueToken]) -> Int? {
        guard let last = tokens.indices.last else { return nil }
        guard tokens[last] == .closeParen else { return last }
        var depth = 0
        for index in stride(from: last, through: 0, by: -1) {
            switch tokens[index] {
            case .closeParen: depth += 1
            case .openParen, .function:
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return nil
    }

    /// The option of an `image-set()` a browser on `device` takes (CSS Images Level 4 §2.2
    /// "Resolution/Type Negotiation"): options whose `type()` the device does not decode are out;
    /// of the rest, as Chromium's `CSSImageSetValue` chooses, the one of smallest resolution at
    /// least the device's pixel ratio, else the largest; the first option of equal resolution.
    static func imageSetOption(_ options: [ImageCandidate], for device: DeviceProfile) -> Int? {
        var usable: [(index: Int, density: Double)] = []
        for (index, option) in options.enumerated() {
            if let type = option.type, !decodes(type, device) { continue }
            switch option.descriptor {
            case .none: usable.append((index, 1))
            case .density(let density): usable.append((index, density))
            case .width: continue
            }
        }
        return densest(usable, for: device)
    }

    /// Of `entries` (an index and a density each), sorted by density with the first of each density
    /// kept, the index of the smallest density at least the device's pixel ratio, else of the largest.
    private static func densest(_ entries: [(index: Int, density: Double)], for device: DeviceProfile) -> Int? {
        // A stable sort: of equal densities the earlier (srcset before src) is kept.
        let sorted = entries.enumerated().sorted {
            $0.element.density != $1.element.density ? $0.element.density < $1.element.density : $0.offset < $1.offset
        }.map(\.element)
        var unique: [(index: Int, density: Double)] = []
        for entry in sorted where entry.density != unique.last?.density { unique.append(entry) }
        guard let largest = unique.last else { return nil }
        return (unique.first { $0.density >= device.devicePixelRatio } ?? largest).index
    }
}
