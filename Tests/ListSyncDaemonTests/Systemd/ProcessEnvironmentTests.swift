#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing

@testable import ListSyncDaemon

/// Tests that change the process environment. `setenv`/`unsetenv` rearrange the `environ` array
/// in place, so these must not run alongside each other (nothing else in the tests reads it).
@Suite("Process environment", .serialized)
struct ProcessEnvironmentTests {
    @Test("removeEnvironmentVariables unsets exactly the LISTEN_* variables")
    func unsetting() {
        for name in SocketActivation.environmentVariableNames + ["LISTEN_UNRELATED"] { setenv(name, "1", 1) }
        defer { unsetenv("LISTEN_UNRELATED") }
        SocketActivation.removeEnvironmentVariables()
        for name in SocketActivation.environmentVariableNames { #expect(getenv(name) == nil) }
        #expect(getenv("LISTEN_UNRELATED") != nil)
        #expect(ProcessEnvironment.current()["LISTEN_PID"] == nil)
    }

    @Test("ProcessEnvironment.current reads the variables, pid and uid of this process")
    func currentEnvironment() {
        setenv("LISTSYNC_TEST_VARIABLE", "a=b", 1)
        defer { unsetenv("LISTSYNC_TEST_VARIABLE") }
        let current = ProcessEnvironment.current()
        #expect(current["LISTSYNC_TEST_VARIABLE"] == "a=b")
        #expect(current.processID == getpid())
        #expect(current.userID == getuid())
        #expect(current.workingDirectory.hasPrefix("/"))
    }
}
