import Testing

@testable import Discovery

/// `sizes` and candidate choice by table, for several devices (HTML §4.8.4.3 "Images").
struct ImageSelectionTests {
    static let wideTwoX = DeviceProfile(viewportWidth: 1000, viewportHeight: 800, devicePixelRatio: 2)

    /// (sizes, desktop px, phone px) — HTML §4.8.4.3.11 "Parsing a sizes attribute".
    static let sizesTable: [(String?, Double, Double)] = [
        (nil, 1280, 390),
        ("100vw", 1280, 390),
        ("50vw", 640, 195),
        ("300px", 300, 300),
        ("20em", 320, 320),
        ("2rem", 32, 32),
        ("(max-width: 600px) 100vw, 50vw", 640, 390),
        ("(min-width: 1024px) 800px, (min-width: 600px) 50vw, 100vw", 800, 390),
        ("(max-width: 600px) 480px, 800px", 800, 480),
        ("calc(100vw - 32px)", 1248, 358),
        ("calc((100vw - 3 * 16px) / 2)", 616, 171),
        ("calc(50vw + 2em)", 672, 227),
        ("min(100vw, 600px)", 600, 390),
        ("max(50vw, 400px)", 640, 400),
        ("clamp(200px, 50vw, 500px)", 500, 200),
        ("10vh", 80, 84.4),
        // Entries that do not parse are skipped; none applies: 100vw.
        ("(max-width: 600px) bogus, 400px", 400, 400),
        ("-10px, 300px", 300, 300),
        ("(unknown: 1) 10px, 20px", 20, 20),
        ("(min-width: 2000px) 10px", 1280, 390),
        ("auto", 1280, 390),
        ("calc(10px * 10px), 50px", 50, 50),
    ]

    @Test(arguments: sizesTable)
    func evaluatesSizes(_ row: (String?, Double, Double)) {
        let (sizes, desktop, phone) = row
        #expect(abs(ImageSelection.sourceSize(sizes, for: .desktop) - desktop) < 0.01, "desktop: \(sizes ?? "nil")")
        #expect(abs(ImageSelection.sourceSize(sizes, for: .phone) - phone) < 0.01, "phone: \(sizes ?? "nil")")
    }

    /// (srcset, sizes, src, pick on desktop 1x, pick on laptop 2x, pick on phone 3x) — the URL taken.
    /// Chromium takes the smallest density at least the device's, else the largest (checked
    /// against Chromium itself by ``DeviceChromiumTests``).
    static let candidateTable: [(String, String?, String?, String, String, String)] = [
        ("a1.jpg 1x, a2.jpg 2x, a3.jpg 3x", nil, nil, "a1.jpg", "a2.jpg", "a3.jpg"),
        ("a2.jpg 2x", nil, "a1.jpg", "a1.jpg", "a2.jpg", "a2.jpg"),
        ("a1.jpg 1x, a15.jpg 1.5x", nil, nil, "a1.jpg", "a15.jpg", "a15.jpg"),
        ("a1.jpg, a2.jpg 2x", nil, "src.jpg", "a1.jpg", "a2.jpg", "a2.jpg"),
        // The src is a 1x candidate only when srcset has none and no w descriptors.
        ("a1.jpg 1x", nil, "src.jpg", "a1.jpg", "a1.jpg", "a1.jpg"),
        // w descriptors: density = width / source size.
        ("s.jpg 400w, m.jpg 800w, l.jpg 1600w, xl.jpg 3200w", nil, "src.jpg", "l.jpg", "xl.jpg", "l.jpg"),
        ("s.jpg 400w, m.jpg 800w, l.jpg 1600w", "50vw", nil, "m.jpg", "l.jpg", "m.jpg"),
        ("s.jpg 400w, m.jpg 800w, l.jpg 1600w", "(max-width: 600px) 100vw, 33vw", nil, "m.jpg", "l.jpg", "l.jpg"),
        ("s.jpg 320w, m.jpg 640w", "100vw", nil, "m.jpg", "m.jpg", "m.jpg"),
        ("s.jpg 300w, m.jpg 600w", "300px", nil, "s.jpg", "m.jpg", "m.jpg"),
        // Equal densities: the first is kept.
        ("first.jpg 2x, second.jpg 2x, one.jpg 1x", nil, nil, "one.jpg", "first.jpg", "first.jpg"),
    ]

    @Test(arguments: candidateTable)
    func choosesCandidates(_ row: (String, String?, String?, String, String, String)) {
        let (srcset, sizes, src, desktop, laptop, phone) = row
        let alternative = ImageSourceSet.Alternative(
            candidates: SrcsetParser.candidates(in: srcset), sizes: sizes, fallback: src)
        func pick(_ device: DeviceProfile) -> String? {
            ImageSelection.candidate(in: alternative, for: device).map {
                $0 < alternative.candidates.count ? alternative.candidates[$0].url : alternative.fallback ?? ""
            }
        }
        #expect(pick(.desktop) == desktop, "desktop: \(srcset)")
        #expect(pick(.laptop) == laptop, "laptop: \(srcset)")
        #expect(pick(.phone) == phone, "phone: \(srcset)")
    }

    /// `<picture>` (HTML §4.8.4.3.7): the first `<source>` whose media matches and whose type decodes.
    @Test func picturesTakeTheFirstMatchingSource() throws {
        let set = ImageSourceSet(alternatives: [
            .init(type: "image/heic", candidates: SrcsetParser.candidates(in: "a.heic")),
            .init(media: "(min-width: 800px)", type: "image/avif", candidates: SrcsetParser.candidates(in: "wide.avif 1x, wide2.avif 2x")),
            .init(media: "(max-width: 799px)", candidates: SrcsetParser.candidates(in: "narrow.jpg 1x, narrow3.jpg 3x")),
            .init(candidates: [], fallback: "img.jpg"),
        ])
        #expect(ImageSelection.pick(in: set, for: .desktop) == .init(alternative: 1, candidate: 0))
        #expect(ImageSelection.pick(in: set, for: .laptop) == .init(alternative: 1, candidate: 1))
        #expect(ImageSelection.pick(in: set, for: .phone) == .init(alternative: 2, candidate: 1))
        var noAVIF = DeviceProfile.desktop
        noAVIF.imageTypes.remove("image/avif")
        #expect(ImageSelection.pick(in: set, for: noAVIF) == .init(alternative: 3, candidate: 0))
    }

    /// A preload whose media does not match preloads nothing (HTML §4.6.7.11).
    @Test func preloadsWithUnmatchedMediaPickNothing() {
        let set = ImageSourceSet(alternatives: [
            .init(media: "(max-width: 600px)", candidates: SrcsetParser.candidates(in: "m.jpg 600w"), fallback: "x.jpg"),
        ])
        #expect(ImageSelection.pick(in: set, for: .desktop) == nil)
        #expect(ImageSelection.pick(in: set, for: .phone) == .init(alternative: 0, candidate: 0))
    }

    /// `image-set()` (CSS Images 4 §2.2): types the device does not decode are out; the smallest
    /// resolution at least the device's, else the largest.
    @Test(arguments: [
        ("\"a.png\" 1x, \"b.png\" 2x", 0, 1, 1),
        ("url(a.avif) type(\"image/avif\") 1x, url(a.jpg) type(\"image/jpeg\") 1x", 0, 0, 0),
        ("url(a.heic) type(\"image/heic\"), url(a.jpg)", 1, 1, 1),
        ("\"a.png\" 1x, \"b.png\" 192dpi, \"c.png\" 3dppx", 0, 1, 2),
        ("\"small.png\" 0.5x", 0, 0, 0),
    ])
    func choosesImageSetOptions(_ arguments: String, _ desktop: Int, _ laptop: Int, _ phone: Int) {
        let options = CSSRuleContext.imageSetOptions(arguments).map {
            ImageCandidate(url: "", descriptor: $0.descriptor, type: $0.type)
        }
        #expect(ImageSelection.imageSetOption(options, for: .desktop) == desktop)
        #expect(ImageSelection.imageSetOption(options, for: .laptop) == laptop)
        #expect(ImageSelection.imageSetOption(options, for: .phone) == phone)
    }

    /// An `<img>`'s `src` and `srcset` candidates share one boxed condition; each reference still
    /// reads as its own candidate of the set, compares and hashes as a reference made with that
    /// condition, and a condition set on it afterwards is its own.
    @Test func sourceSetReferencesReadAsTheirOwnCandidates() throws {
        let references = scanReferences(Array(#"<img src="a.jpg" srcset="b.jpg 2x, c.jpg 3x">"#.utf8))
        #expect(references.map(\.urlString) == ["a.jpg", "b.jpg", "c.jpg"].map { "https://example.com/dir/" + $0 })
        guard case .sourceSet(let set, let alternative, _)? = references.first?.condition?.image else {
            Issue.record("no source set on the src: \(references)")
            return
        }
        #expect(alternative == 0)
        #expect(set.alternatives.count == 1 && set.alternatives[0].candidates.count == 2)
        for (reference, candidate) in zip(references, [2, 0, 1]) {
            let expected = Reference.Condition(image: .sourceSet(set, alternative: 0, candidate: candidate))
            #expect(reference.condition == expected, "\(reference)")
            let rebuilt = Reference(url: reference.url, kind: reference.kind, source: reference.source,
                                    isRequisite: reference.isRequisite, condition: expected)
            #expect(reference == rebuilt && reference.hashValue == rebuilt.hashValue, "\(reference)")
        }
        var changed = references[1]
        changed.condition = Reference.Condition(media: ["print"])
        #expect(changed.condition == Reference.Condition(media: ["print"]))
    }
}
