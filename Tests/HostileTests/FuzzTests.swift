import Discovery
import Foundation
import HTTPCaching
import HTTPCore
import Sessions
import Testing
import WebCacheTestSupport

@testable import WebCache

/// Seeded fuzzing with a fixed budget: random and mutated inputs never crash a parser, never make
/// it loop (every case returns), and keep each parser's invariants. `scripts/fuzz.sh` runs more.
/// The time limit, far above the seconds a test takes at the base budget and grown with it, reports
/// a hung test as failed by name; a case that never returns is reported, but the run still waits
/// for it. Each test computes on a thread of its own, so that other tests' tasks are not held up.
@Suite(.timeLimit(.minutes(2 * FuzzBudget.scale))) struct FuzzTests {
    private static let page = URL(string: "https://example.com/dir/page.html")!
    private static let stylesheet = URL(string: "https://example.com/css/site.css")!

    // MARK: - Scanners

    private static func scanHTML(_ bytes: [UInt8], chunks: [Int]?) -> [Reference] {
        var scanner = HTMLScanner(documentURL: page, options: .init(includesMedia: true, includesLinks: true))
        var found: [Reference] = []
        var offset = 0
        for length in chunks ?? [] {
            found += scanner.feed(bytes[offset..<offset + length])
            offset += length
        }
        found += scanner.feed(bytes[offset...])
        return found + scanner.finish()
    }

    private static func scanCSS(_ bytes: [UInt8], chunks: [Int]?) -> [Reference] {
        var scanner = CSSScanner(stylesheetURL: stylesheet)
        var found: [Reference] = []
        var offset = 0
        for length in chunks ?? [] {
            found += scanner.feed(bytes[offset..<offset + length])
            offset += length
        }
        found += scanner.feed(bytes[offset...])
        return found + scanner.finish()
    }

    @Test func htmlScannerSurvivesRandomAndMutatedPagesWholeOrChunked() async throws {
        try await offThePool {
            let seeds = [try DiscoveryFixtures.bytes("tricky.html"), try DiscoveryFixtures.bytes("latin1.html")]
            let cases = FuzzBudget.cases(600)
            var mutator = Mutator(seed: FuzzBudget.seed)
            var referencesSeen = 0
            for index in 0..<cases {
                let input = index % 4 == 0
                    ? mutator.randomBytes(maximumLength: 2048)
                    : mutator.mutate(seeds[index % seeds.count])
                let whole = Self.scanHTML(input, chunks: nil)
                let chunked = Self.scanHTML(input, chunks: mutator.chunkLengths(for: input.count))
                #expect(
                    whole == chunked, "case \(index) (seed \(FuzzBudget.seed)): \(Data(input).base64EncodedString())")
                for reference in whole { #expect(reference.url.scheme != nil) }
                referencesSeen += whole.count
                if whole != chunked { break }
            }
            // Mutated pages keep most of their references: the fuzzing reached the interesting states.
            #expect(referencesSeen > cases)
        }
    }

    @Test func cssScannerSurvivesRandomAndMutatedStylesheetsWholeOrChunked() async throws {
        try await offThePool {
            let seed = try DiscoveryFixtures.bytes("site.css")
            let cases = FuzzBudget.cases(1500)
            var mutator = Mutator(seed: FuzzBudget.seed &+ 1)
            var referencesSeen = 0
            for index in 0..<cases {
                let input = index % 4 == 0 ? mutator.randomBytes(maximumLength: 1024) : mutator.mutate(seed)
                let whole = Self.scanCSS(input, chunks: nil)
                let chunked = Self.scanCSS(input, chunks: mutator.chunkLengths(for: input.count))
                #expect(
                    whole == chunked, "case \(index) (seed \(FuzzBudget.seed)): \(Data(input).base64EncodedString())")
                referencesSeen += whole.count
                if whole != chunked { break }
            }
            #expect(referencesSeen > cases)
        }
    }

    // MARK: - Header fields

    private static let headerAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789-=,;\"' \t/\\WMGTSun:\u{E9}\u{0}\r\n()*"

    // MARK: - Stored content decoding

    /// Decodes `bytes` fed in pieces of `chunks` lengths (whole when `nil`): the decoded bytes, or
    /// the failure's reason.
    private static func decode(_ bytes: [UInt8], coding: String, chunks: [Int]?) -> Result<Data, ContentDecoder.Failure> {
        guard let decoder = ContentDecoder(coding: coding) else { return .failure(.init(reason: "no decoder")) }
        var output = Data()
        var offset = 0
        do {
            for length in (chunks ?? []) + [bytes.count - (chunks ?? []).reduce(0, +)] {
                decoder.feed(Data(bytes[offset..<offset + length]))
                offset += length
                while !decoder.needsInput, !decoder.hasEnded {
                    output.append(try decoder.read(atMost: 4_096))
                }
            }
            try decoder.finish()
            return .success(output)
        } catch {
            return .failure(error)
        }
    }

    @Test func contentDecoderSurvivesRandomAndMutatedContentWholeOrChunked() async {
        await offThePool {
            let text = Array("<html><img src=/photo.png> hello gzip hello gzip hello</html>\n".utf8)
            let seeds: [(String, [UInt8])] = [
                ("gzip", Array(Data(base64Encoded: "H4sIAIylDGsC/8tIzcnJV0ivyixQyBhljjJHmaNMcpkATFbXD0wEAAA=")!)),
                ("deflate", Array(Data(base64Encoded: "eJzLSM3JyVdISU3LSSxJVcgY5Y3yhgwPAJ/pAhI=")!)),
                ("deflate", Array(Data(base64Encoded: "y0jNyclXSElNy0ksSVXIGOWN8oYMDwA=")!)),
                ("gzip", text),
            ]
            var mutator = Mutator(seed: FuzzBudget.seed)
            var decoded = 0
            for index in 0..<FuzzBudget.cases(600) {
                let (coding, seed) = seeds[index % seeds.count]
                let input = index % 5 == 0 ? mutator.randomBytes(maximumLength: 512) : mutator.mutate(seed)
                let whole = Self.decode(input, coding: coding, chunks: nil)
                let chunked = Self.decode(input, coding: coding, chunks: mutator.chunkLengths(for: input.count))
                // Where the pieces fall changes nothing: the same bytes, or a failure either way.
                switch (whole, chunked) {
                case (.success(let one), .success(let other)):
                    #expect(one == other, "case \(index) (seed \(FuzzBudget.seed)): \(Data(input).base64EncodedString())")
                    decoded += 1
                case (.failure, .failure):
                    break
                default:
                    let message = "case \(index) (seed \(FuzzBudget.seed)) decodes only whole or only in pieces: "
                    Issue.record(Comment(rawValue: message + Data(input).base64EncodedString()))
                }
            }
            // The seeds that decode keep decoding through mild mutations now and then.
            #expect(decoded > 0)
        }
    }

    @Test func cacheControlParsesAnythingAndReadsItsOwnDirectives() async {
        await offThePool {
            var mutator = Mutator(seed: FuzzBudget.seed &+ 2)
            let fragments = ["max-age=", "s-maxage=", "no-cache", "no-store", "private=\"", "\"", "=", ",", "60",
                             "-1", "99999999999999999999", "stale-while-revalidate=", "immutable", "must-revalidate"]
            let cases = FuzzBudget.cases(4000)
            var directivesSeen = 0
            for _ in 0..<cases {
                let value = mutator.text(from: Self.headerAlphabet, fragments: fragments, maximumLength: 40)
                let parsed = CacheControl(value)
                for directive in parsed.directives {
                    #expect(directive.name == directive.name.lowercased())
                    #expect(!directive.name.isEmpty)
                    switch parsed.deltaSeconds(directive.name) {
                    case .seconds(let seconds):
                        #expect(seconds >= 0 && seconds <= CacheControl.maximumDeltaSeconds)
                    case .invalid, .absent:
                        break
                    }
                    _ = parsed.fieldNames(directive.name)
                }
                #expect(CacheControl(headers: ["Cache-Control": value]) == parsed)
                directivesSeen += parsed.directives.count
            }
            #expect(directivesSeen > cases / 2)
        }
    }

    @Test func httpDatesRoundTripForEverythingThatParses() async {
        await offThePool {
            var mutator = Mutator(seed: FuzzBudget.seed &+ 3)
            let fragments = ["Sun, ", "Mon", "06", "Nov", "1994", "0999", "08:49:37", " GMT", "-", "94", "29", "Feb",
                             "2000", "23:59:60", "99", "9999", "0001", " ", ","]
            let cases = FuzzBudget.cases(4000)
            var parsed = 0
            var failures = 0
            for index in 0..<cases where failures < 3 {
                let text: String
                if index % 2 == 0 {
                    // A date that exists, written the standard way, then perhaps mutated.
                    let seconds = Int64.random(in: -62_135_596_800...253_402_300_799, using: &mutator.random)
                    let formatted = HTTPDate.format(Date(timeIntervalSince1970: TimeInterval(seconds)))
                    if HTTPDate.parse(formatted) != Date(timeIntervalSince1970: TimeInterval(seconds)) {
                        Issue.record("'\(formatted)' does not parse back to \(seconds) seconds after 1970")
                        failures += 1
                    }
                    let mutated = String(decoding: mutator.mutate(Array(formatted.utf8)), as: UTF8.self)
                    text = index % 4 == 0 ? formatted : mutated
                } else {
                    text = mutator.text(from: Self.headerAlphabet, fragments: fragments, maximumLength: 12)
                }
                guard let date = HTTPDate.parse(text) else { continue }
                parsed += 1
                let again = HTTPDate.format(date)
                if HTTPDate.parse(again) != date {
                    Issue.record("'\(text)' parsed, but its formatting '\(again)' does not")
                    failures += 1
                }
            }
            #expect(parsed > cases / 8)
        }
    }

    @Test func entityTagsRoundTripForEverythingThatParses() async {
        await offThePool {
            var mutator = Mutator(seed: FuzzBudget.seed &+ 4)
            let fragments = ["\"", "W/", "w/", "W/\"", "\u{7F}", "\u{0}", " ", "\u{E9}", "*"]
            let cases = FuzzBudget.cases(4000)
            var parsed = 0
            for index in 0..<cases {
                // Half are well-formed tags, perhaps mutated; half are random text.
                let body = mutator.text(from: "abc!#~\u{E9}", fragments: [], maximumLength: 8)
                let wellFormed = (Bool.random(using: &mutator.random) ? "W/" : "") + "\"\(body)\""
                let mutated = String(decoding: mutator.mutate(Array(wellFormed.utf8)), as: UTF8.self)
                let text = index % 2 == 0
                    ? (index % 4 == 0 ? wellFormed : mutated)
                    : mutator.text(from: "abc\"W/ \t!#~\u{E9}", fragments: fragments, maximumLength: 10)
                guard let tag = EntityTag(parsing: text) else { continue }
                parsed += 1
                #expect(EntityTag(parsing: tag.description) == tag, "'\(text)'")
                #expect(tag.weaklyMatches(tag))
                #expect(tag.stronglyMatches(tag) == !tag.isWeak)
            }
            #expect(parsed > cases / 4)
        }
    }

    @Test func varyKeysAreStableAndNeverConfuseDifferentRequests() async {
        await offThePool {
            var mutator = Mutator(seed: FuzzBudget.seed &+ 5)
            let names = ["accept-language", "Accept-Encoding", "x-a", "X-B", "*", "", " ", "\"q\"", "a:b", "\u{E9}"]
            let cases = FuzzBudget.cases(3000)
            var compared = 0
            for _ in 0..<cases {
                let vary = (0..<Int.random(in: 0...4, using: &mutator.random))
                    .map { _ in names.randomElement(using: &mutator.random)! }.joined(separator: ",")
                var request = HTTPHeaders()
                for _ in 0..<Int.random(in: 0...4, using: &mutator.random) {
                    let name = names.filter { !$0.isEmpty && $0 != "*" && !$0.contains(" ") && !$0.contains(":") }
                        .randomElement(using: &mutator.random)!
                    request.append(name: name, value: mutator.text(from: "abc ,;\t", fragments: [], maximumLength: 6))
                }
                let key = VaryKey.secondaryKey(forVary: vary, request: request)
                #expect(VaryKey.secondaryKey(forVary: vary, request: request) == key)
                if vary.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "*" }) {
                    #expect(key == nil, "Vary '\(vary)' contains * but has a key")
                    continue
                }
                // The order of the nominated names does not matter.
                let reversed = vary.split(separator: ",", omittingEmptySubsequences: false).reversed()
                    .joined(separator: ",")
                #expect(VaryKey.secondaryKey(forVary: reversed, request: request) == key)
                // Changing a nominated field's value changes the key.
                let nominated = HTTPHeaders.splitList(vary).filter { name in
                    request.values(for: name).isEmpty == false
                }
                if let name = nominated.first {
                    var other = request
                    other[name] = "a-value-nobody-sent"
                    #expect(VaryKey.secondaryKey(forVary: vary, request: other) != key, "Vary '\(vary)'")
                    compared += 1
                }
            }
            #expect(compared > 0)
        }
    }

    @Test func cookieJarStoresOnlyWellFormedCookiesForTheRightHosts() async {
        await offThePool {
            var mutator = Mutator(seed: FuzzBudget.seed &+ 6)
            let fragments = ["sid=", "=", ";", " Domain=", "example.com", ".example.com", "com", "other.org", " Path=/",
                             " Secure", " HttpOnly", " Max-Age=", "-1", "99999999999999999999", " Expires=",
                             "Sun, 06 Nov 1994 08:49:37 GMT", "Wed, 01 Jan 2100 00:00:00 GMT", "__Host-", "__Secure-",
                             " SameSite=", "Lax", "\u{0}", "\u{7F}", "\"", String(repeating: "v", count: 5000)]
            let url = URL(string: "https://www.example.com/dir/page")!
            let stranger = URL(string: "https://www.other.org/")!
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let jar = CookieJar()
            let cases = FuzzBudget.cases(3000)
            var stored = 0
            for _ in 0..<cases {
                let line = mutator.text(from: "abcxyz=;. -/\t", fragments: fragments, maximumLength: 12)
                if case .stored = jar.store(setCookie: line, from: url, now: now) { stored += 1 }
            }
            #expect(stored > 0)
            #expect(jar.cookies(for: stranger, now: now).isEmpty)
            for cookie in jar.snapshot(now: now).cookies {
                #expect(!cookie.name.isEmpty)
                #expect(cookie.name.utf8.count + cookie.value.utf8.count <= 4096)
                #expect(!(cookie.name + cookie.value).utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F })
                #expect(cookie.domain == "example.com" || cookie.domain == "www.example.com", "\(cookie)")
            }
            // At most 50 cookies per cookie domain (host-only ones for www.example.com, domain ones for example.com).
            let perDomain = Dictionary(grouping: jar.snapshot(now: now).cookies, by: \.domain).mapValues(\.count)
            #expect(perDomain.values.allSatisfy { $0 <= 50 }, "\(perDomain)")
            if let header = jar.cookieHeader(for: url, now: now) {
                #expect(!header.contains("\r") && !header.contains("\n"))
            }
        }
    }
}
