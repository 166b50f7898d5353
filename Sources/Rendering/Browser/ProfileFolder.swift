import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The names of browsers' profile folders, which say what `webcache` process owns each, and the
/// removal of those whose owner is gone.
///
/// A run removes its browser's folder when it ends, on an error and on a signal, but not when it is
/// killed outright (`SIGKILL`, the machine's memory running out): its folder (with its singleton
/// folder beside it) stays. A name is `webcache-chromium-PID-START-UUID`, START being when process
/// PID started (in clock ticks after boot, as `/proc/PID/stat` gives it), so that a later process
/// given the same id is told from the owner. A folder of another form is never removed.
enum ProfileFolder {
    static let prefix = "webcache-chromium-"

    /// A new folder name, owned by this process.
    static func newName() -> String {
        let pid = getpid()
        return prefix + "\(pid)-\(ProcessTable.startTime(of: pid) ?? 0)-\(UUID().uuidString)"
    }

    /// The owner a folder name states; `nil` for a name of another form.
    static func owner(ofName name: String) -> (pid: pid_t, started: UInt64)? {
        guard name.hasPrefix(prefix) else { return nil }
        let parts = name.dropFirst(prefix.count).split(separator: "-", maxSplits: 2)
        guard parts.count == 3, let pid = pid_t(parts[0]), pid > 0, let started = UInt64(parts[1]),
            UUID(uuidString: String(parts[2])) != nil
        else { return nil }
        return (pid, started)
    }

    /// Removes the profile folders in `directory` whose owner no longer runs (no process has its id,
    /// or the one that has started at another time), with their singleton folders, after killing any
    /// process still naming them. Folders of other users and names of another form are left alone.
    static func removeAbandoned(in directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names {
            guard let owner = owner(ofName: name), ProcessTable.startTime(of: owner.pid) != owner.started else {
                continue
            }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid() else {
                continue
            }
            // A browser whose run was killed exits when it reads the end of its pipe; one still
            // running has no run to serve.
            for pid in ProcessTable.processes(mentioning: path) { kill(pid, SIGKILL) }
            if let singleton = Browser.singletonFolder(ofProfile: path) {
                try? FileManager.default.removeItem(atPath: singleton)
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
