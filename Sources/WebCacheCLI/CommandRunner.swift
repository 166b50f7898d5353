/// Runs a parsed subcommand.
enum CommandRunner {
    /// Runs the subcommand `spec` names, returning its exit code.
    static func run(_ spec: CommandSpec, context: CommandContext) async throws -> Int32 {
        switch spec.name {
        case CommandCatalog.get.name:
            return try await GetCommand.run(context)
        case CommandCatalog.inspect.name:
            return try await InspectCommand.run(context)
        case CommandCatalog.prune.name:
            return try await PruneCommand.run(context)
        case CommandCatalog.pin.name:
            return try await PinCommand.run(context)
        case CommandCatalog.verify.name:
            return try await VerifyCommand.run(context)
        case CommandCatalog.logout.name:
            return try await LogoutCommand.run(context)
        case CommandCatalog.preload.name:
            return try await PreloadCommand.run(context)
        case CommandCatalog.refresh.name:
            return try await RefreshCommand.run(context)
        case CommandCatalog.serve.name:
            return try await ServeCommand.run(context)
        case CommandCatalog.view.name:
            return try await ViewCommand.run(context)
        case CommandCatalog.salvage.name:
            return try await SalvageCommand.run(context)
        case CommandCatalog.export.name:
            return try await ExportCommand.run(context)
        case CommandCatalog.import.name:
            return try await ImportCommand.run(context)
        case CommandCatalog.merge.name:
            return try await MergeCommand.run(context)
        default:
            throw CLIError("The subcommand '\(spec.name)' is not available in this build.")
        }
    }
}
