import Discovery
import WebCache

/// The engine options `preload` and `refresh` share: how much runs at once, what is fetched and from
/// which hosts, how large it may be, and how often a transient failure is tried again.
enum PreloadScopeOptions {
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["--concurrency", "-j"], kind: .value(name: "n"), help: "Transfers in flight at once.",
                   defaultValue: "8"),
        OptionSpec(names: ["--per-host"], kind: .value(name: "n"), help: "Transfers in flight per host.",
                   defaultValue: "6"),
        OptionSpec(names: ["--media"], kind: .flag, help: "Also store audio and video sources."),
        OptionSpec(names: ["--max-resource-size"], kind: .value(name: "size"),
                   help: "Fail any resource larger than this (nothing of it is stored), audio and video included.",
                   defaultValue: "64MiB"),
        OptionSpec(names: ["--max-media-size"], kind: .value(name: "size"),
                   help: "With --media: fail any audio or video source larger than this.", defaultValue: "32MiB"),
        OptionSpec(names: ["--allow-host"], kind: .repeatedValue(name: "host"),
                   help: "Fetch sub-resources and follow links only on these hosts (repeatable): names or IP "
                       + "addresses, matched exactly and on every port."),
        OptionSpec(names: ["--deny-host"], kind: .repeatedValue(name: "host"),
                   help: "Never fetch from, or follow links to, these hosts (repeatable), matched as --allow-host; "
                       + "a listed page on one is skipped."),
        OptionSpec(names: ["--retries"], kind: .value(name: "n"), help: "Retries for transient failures.",
                   defaultValue: "2"),
        OptionSpec(names: ["--device"], kind: .value(name: "name"),
                   help: "Fetch for this device: " + DeviceProfile.presets.map { preset in
                       "\(preset.name) (\(preset.profile.viewportWidth)x\(preset.profile.viewportHeight) at "
                           + "\(ValueParsers.formatRatio(preset.profile.devicePixelRatio))x)"
                   }.joined(separator: ", ") + ".",
                   defaultValue: "desktop"),
        OptionSpec(names: ["--viewport"], kind: .value(name: "WIDTHxHEIGHT"),
                   help: "The device's viewport in CSS pixels (overrides --device's)."),
        OptionSpec(names: ["--dpr"], kind: .value(name: "n"),
                   help: "The device's pixel ratio, device pixels per CSS pixel (overrides --device's)."),
        OptionSpec(names: ["--all-candidates"], kind: .flag,
                   help: "Fetch every srcset, <picture>, image-set(), @font-face and icon candidate and every CSS "
                       + "image, whatever the device (for stores that serve any device)."),
        OptionSpec(names: ["--icons"], kind: .value(name: "which"),
                   help: "'browser': the icon a browser takes; 'all': apple-touch-icon, mask-icon and manifest "
                       + "icons too.", defaultValue: "browser"),
    ] + renderSpecs + [
        OptionSpec(names: ["--render"], kind: .flag,
                   help: "Load each page in headless Chromium and store everything it requests while its scripts "
                       + "run, instead of what the static scanner finds."),
        OptionSpec(names: ["--har"], kind: .value(name: "file"),
                   help: "With --render: record the run in this HAR 1.2 file, every request the browser made with "
                       + "the answer it got and where that came from."),
    ]

    /// The device options (`--device`, `--viewport`, `--dpr`), shared with `view`.
    static var deviceSpecs: [OptionSpec] {
        specs.filter { ["--device", "--viewport", "--dpr"].contains($0.names[0]) }
    }

    /// The options of rendering in Chromium, shared with `view`.
    static let renderSpecs: [OptionSpec] = [
        OptionSpec(names: ["--chromium"], kind: .value(name: "path"),
                   help: "The Chromium executable (default: chromium on the search path)."),
        OptionSpec(names: ["--settle"], kind: .value(name: "time"),
                   help: "A page is done once no request has been in flight this long after its load event "
                       + "(e.g. 300ms, 1s).", defaultValue: "300ms"),
        OptionSpec(names: ["--render-timeout"], kind: .value(name: "duration"),
                   help: "The longest a page may render; then it is done, and the report lists it.",
                   defaultValue: "30s"),
        OptionSpec(names: ["--scroll"], kind: .flag, help: "Scroll each page to its bottom first, so lazy content loads."),
    ]

    /// The render options `--chromium`, `--settle`, `--render-timeout` and `--scroll` describe.
    static func renderOptions(from arguments: ParsedArguments) throws(UsageError) -> RenderOptions {
        var render = RenderOptions()
        render.chromiumPath = arguments.value("chromium")
        render.settle = try arguments.value("settle", "time", ValueParsers.milliseconds) ?? render.settle
        if let seconds = try arguments.value("render-timeout", "duration", {
            ValueParsers.duration($0).flatMap { $0 > 0 && $0 <= 3600 ? $0 : nil }
        }) {
            render.timeout = .milliseconds(Int64(seconds * 1000))
        }
        render.scrolls = arguments.flag("scroll")
        // Checked once before any work, where every page would fail with it.
        if let problem = render.browserProblem { throw UsageError(problem, command: arguments.spec) }
        return render
    }

    /// The engine options for the shared options given; the others keep their defaults.
    static func options(from arguments: ParsedArguments) throws(UsageError) -> PreloadOptions {
        var options = PreloadOptions()
        options.concurrency = try arguments.value("concurrency", "n", ValueParsers.count(in: 1...1024))
            ?? options.concurrency
        options.perHostConcurrency = try arguments.value("per-host", "n", ValueParsers.count(in: 1...256))
            ?? options.perHostConcurrency
        options.retries = try arguments.value("retries", "n", ValueParsers.count(in: 0...20)) ?? options.retries
        options.includesMedia = arguments.flag("media")
        if let size = try arguments.value("max-resource-size", "size", ValueParsers.byteSize) {
            options.maximumResourceSize = size
        }
        if let size = try arguments.value("max-media-size", "size", ValueParsers.byteSize) {
            guard options.includesMedia else {
                throw UsageError("--max-media-size needs --media", command: arguments.spec)
            }
            options.maximumMediaSize = size
        }
        options.allowedHosts = Set(try HostArgument.all(arguments, "allow-host").map(\.urlHost))
        options.deniedHosts = Set(try HostArgument.all(arguments, "deny-host").map(\.urlHost))
        options.device = try device(from: arguments)
        options.fetchesAllCandidates = arguments.flag("all-candidates")
        options.fetchesAllIcons = try arguments.value("icons", "which", ValueParsers.iconChoice) ?? false
        if arguments.flag("render") {
            options.render = try renderOptions(from: arguments)
            options.render?.harPath = arguments.value("har")
        } else if let option = ["chromium", "settle", "render-timeout", "har"].first(where: { arguments.value($0) != nil })
            ?? (arguments.flag("scroll") ? "scroll" : nil)
        {
            throw UsageError("--\(option) needs --render", command: arguments.spec)
        }
        return options
    }

    /// The device `--device`, `--viewport` and `--dpr` describe.
    static func device(from arguments: ParsedArguments) throws(UsageError) -> DeviceProfile {
        var device = try arguments.value("device", "name", ValueParsers.devicePreset) ?? .desktop
        if let (width, height) = try arguments.value("viewport", "WIDTHxHEIGHT", ValueParsers.viewport) {
            device.viewportWidth = width
            device.viewportHeight = height
        }
        device.devicePixelRatio = try arguments.value("dpr", "n", ValueParsers.pixelRatio) ?? device.devicePixelRatio
        return device
    }
}
