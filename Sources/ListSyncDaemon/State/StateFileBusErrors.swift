import CFileSync

/// What a `SIGBUS` says in the daemon's log before the process ends (issue 19).
///
/// The daemon holds saved versions as read-only mappings of its state files
/// (``WatchStateStore``, `MappedFileRegion`). A file cut short by another process while it is
/// mapped makes the next read of a page past its new end fail with `SIGBUS`, which ends the
/// process at once: without this, with no word in the log. With it, one line on standard error
/// (the journal under systemd) says what happened and what the next start does (it checks the
/// state files and sets aside what does not read whole: a cut slot, and the history with it when
/// no other slot leads on; a journal's cut tail); the process then ends with
/// `SIGBUS` as before, so the service manager sees the same failure and restarts the daemon.
public enum StateFileBusErrors {
    /// Installs the report. Call once, before any state file is mapped.
    public static func report() {
        _ = listsync_report_bus_errors()
    }
}
