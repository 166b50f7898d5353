import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The processes of this machine, as `/proc` lists them.
public enum ProcessTable {
    /// The processes whose command line contains `text` (that are not zombies).
    public static func processes(mentioning text: String) -> [pid_t] {
        let needle = Data(text.utf8)
        return allProcesses().filter { pid in
            guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return commandLine.firstRange(of: needle) != nil && !isZombie(pid)
        }
    }

    /// The live processes in process group `group`.
    public static func processes(inGroup group: pid_t) -> [pid_t] {
        allProcesses().filter { pid in
            guard let fields = statFields(pid), fields.count > 2 else { return false }
            return fields[0] != "Z" && fields[2] == String(group)
        }
    }

    /// When process `pid` started, in clock ticks after the machine booted; `nil` when no process
    /// has that id, or it is a zombie (it has ended).
    public static func startTime(of pid: pid_t) -> UInt64? {
        guard let fields = statFields(pid), fields.count > 19, fields[0] != "Z" else { return nil }
        return UInt64(fields[19])
    }

    private static func allProcesses() -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
    }

    private static func isZombie(_ pid: pid_t) -> Bool {
        statFields(pid)?.first == "Z"
    }

    /// The fields of `/proc/PID/stat` after the command name: state, parent, group, session, ….
    private static func statFields(_ pid: pid_t) -> [String]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ").map(String.init)
    }
}
