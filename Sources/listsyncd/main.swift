#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ListSyncDaemon

// `listsyncd`'s entry point (ListSyncDaemonCommand). Not an async main: that parks the main
// thread in dispatch_main(), which ends it with pthread_exit(), whose forced unwind of the main
// thread reads the unwind tables of the binary (.eh_frame_hdr and .eh_frame: 0.8 MiB resident
// for nothing). The command runs in a task of the concurrency pool, as under an async main (no
// actor of its own: nothing of the daemon runs on the main actor), and the main thread waits
// here until the command ends the process: exit status 0 when it returns, its own status when
// it fails (ArgumentParser exits). Signals are the ServiceLifecycle's (dispatch sources).
ListSyncDaemonCommand.setUpMalloc()
// A state file cut short under its mapping ends the process with SIGBUS: say so in the log first.
StateFileBusErrors.report()
Task.detached {
    await ListSyncDaemonCommand.main(nil)
    exit(EXIT_SUCCESS)
}
while true {
    pause()
}
