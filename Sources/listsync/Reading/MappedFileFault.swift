import Glibc

/// What `listsync diff` does when a file it reads through a mapping (``ListFile/Loading/mapped``)
/// is truncated by another program meanwhile.
///
/// The kernel then raises `SIGBUS` at the next read of a page past the file's new end. Left to
/// the default action, the process dies with "Bus error" and says nothing of why; with this
/// handler it says what happened and exits with diff(1)'s trouble status, 2, so that a script
/// never takes a cut-short output for a result. The handler only writes a fixed message and
/// exits (`write` and `_exit` are async-signal-safe); the message says "most likely", because a
/// signal handler cannot tell that fault from another source of `SIGBUS` (a program file of the
/// process itself replaced in place).
enum MappedFileFault {
    /// The exit status after the fault: diff(1)'s "trouble".
    static let exitStatus: Int32 = 2

    /// Installs the handler for the rest of the process's life.
    static func installHandler() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            let message: StaticString = """
                listsync: reading a mapped file failed (SIGBUS): most likely a file was truncated by \
                another program while it was being read; the output, if any, is incomplete\n
                """
            _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
            _exit(2)  // ``exitStatus``: a C handler reads no Swift global.
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        _ = sigaction(SIGBUS, &action, nil)
    }
}
