import DurableFiles
import Glibc
import Testing
import UnixSockets

/// Every failed system call is one ``SystemCallError`` that says the path, what was being done,
/// the call and the system's text for its `errno` (issue 18: one error type for failed system
/// calls, messages as informative as before).
struct SystemCallErrorTests {
    @Test func aFailedReplacementNamesThePathTheStepTheCallAndTheErrno() throws {
        let scratch = try ScratchDirectory()
        let target = scratch.path + "/missing/list.csv"
        #expect(throws: SystemCallError(call: "open", code: ENOENT, path: target + ".tmp", operation: "create")) {
            try DurableFile.replace(
                target, through: target + ".tmp", permissions: 0o644, writing: { (_: Int32) throws(SystemCallError) in },
                failure: { step, path, error in error.on(path, doing: step.operation) })
        }
        let error = SystemCallError(call: "open", code: ENOENT, path: target + ".tmp", operation: "create")
        #expect(error.description == "\(target).tmp: cannot create: open: No such file or directory (errno 2)")
        #expect(SystemCallError(call: "fsync", code: EIO).description == "fsync: Input/output error (errno 5)", "without a path, as before")
    }

    @Test func aFailedConnectNamesTheSocketPath() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path + "/nobody.sock"
        do {
            let descriptor = try UnixStreamSocket.connect(to: path)
            close(descriptor)
            Issue.record("connected to a socket nobody listens on")
        } catch {
            #expect(error == SystemCallError(call: "connect", code: ENOENT, path: path))
            #expect(error.description == "\(path): connect: No such file or directory (errno 2)")
        }
    }
}
