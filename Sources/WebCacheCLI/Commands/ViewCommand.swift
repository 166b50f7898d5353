import FoundationEssentials
import WebCache

/// `webcache view URL`: shows a stored page in Chromium with every request answered from the store
/// only: headless, captured as a PNG or PDF, or in a window when a display is available.
enum ViewCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let arguments = context.arguments
        let url = try arguments.requestURL(arguments.positionals[0], for: "<url>").absoluteString
        var options = ViewOptions()
        options.render = try PreloadScopeOptions.renderOptions(from: arguments)
        options.device = try PreloadScopeOptions.device(from: arguments)
        let screenshot = arguments.value("screenshot")
        let pdf = arguments.value("pdf")
        options.capturesScreenshot = screenshot != nil
        options.capturesPDF = pdf != nil
        options.showsWindow = screenshot == nil && pdf == nil
        let environment = ProcessInfo.processInfo.environment
        if options.showsWindow, (environment["DISPLAY"] ?? "").isEmpty, (environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            throw UsageError("Give --screenshot <file> or --pdf <file>: there is no display for a window "
                             + "(DISPLAY is not set)", command: arguments.spec)
        }
        let stderr = context.stderr
        return try await context.withCache(adjusting: { $0.readOnly = true }) { cache in
            let report = try await cache.view(url, options: options, whenOpened: {
                stderr.write("Showing \(url) offline in a window; close it (or press Ctrl-C) to end.\n")
            })
            for (path, data) in [(screenshot, report.screenshot), (pdf, report.pdf)] {
                guard let path, let data else { continue }
                do {
                    try data.write(to: URL(fileURLWithPath: path))
                } catch {
                    throw CLIError("The file '\(path)' cannot be written: \(CLIError.describe(error))")
                }
                context.stdout.write("Wrote \(path) (\(ValueParsers.formatBytes(Int64(data.count)))).\n")
            }
            var text = "Viewed \(report.url) offline: \(report.answered) request(s) answered from the store"
            text += report.hitCap ? ", still busy at the render timeout.\n" : ".\n"
            let leftOut = report.missing.filter { $0.leftOutWhenPreloaded != nil }
            let missed = report.missing.filter { $0.leftOutWhenPreloaded == nil }
            if !missed.isEmpty {
                text += "\(missed.count) not in the store (answered with 504):\n"
                for missing in missed { text += "  \(missing.url): \(missing.reason)\n" }
            }
            if !leftOut.isEmpty {
                text += "\(leftOut.count) left out when the page was preloaded, as its device would not fetch them "
                    + "(answered with 504):\n"
                for missing in leftOut { text += "  \(missing.url): \(missing.leftOutWhenPreloaded ?? "")\n" }
            }
            context.stderr.write(text)
            return report.documentStatus == nil || report.documentStatus == 504 ? ExitCode.failure : ExitCode.success
        }
    }
}
