import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered writes to a file descriptor with write(2): whole outputs of
/// hundreds of megabytes go out in large blocks, without Foundation.
struct OutputWriter: ~Copyable {
    /// The descriptor written to.
    let descriptor: Int32

    private var buffer: [UInt8] = []

    /// Bytes kept before they are written out.
    private static let blockSize = 1 << 16

    /// A writer to `descriptor` (standard output by default).
    init(descriptor: Int32 = STDOUT_FILENO) {
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.blockSize)
    }

    /// Whether the descriptor is a terminal.
    var isTerminal: Bool {
        isatty(descriptor) == 1
    }

    /// The width of the terminal the descriptor is, in columns; `nil` when it is no terminal
    /// (or does not say).
    var terminalWidth: Int? {
        var size = winsize()
        guard isTerminal, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Appends `text`'s UTF-8 bytes.
    mutating func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.blockSize { flush() }
    }

    /// Writes `bytes`, directly when they are larger than a block.
    mutating func write(bytes: [UInt8]) {
        if bytes.count >= Self.blockSize {
            flush()
            Self.writeAll(bytes, to: descriptor)
        } else {
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.blockSize { flush() }
        }
    }

    /// Writes out what is buffered.
    mutating func flush() {
        Self.writeAll(buffer, to: descriptor)
        buffer.removeAll(keepingCapacity: true)
    }

    deinit {
        Self.writeAll(buffer, to: descriptor)
    }

    /// Writes `text` to standard error at once (diagnostics are not buffered).
    static func writeStandardError(_ text: String) {
        writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    /// Writes every byte, retrying after interruptions and short writes. A
    /// reader that went away (EPIPE) ends the program the way `SIGPIPE` ends
    /// other Unix tools (`listsync` ignores the signal itself, see
    /// ``ListSyncCommand/main()``); other errors end the output silently.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        do {
            try FileDescriptorIO.writeAll(bytes, to: descriptor)
        } catch {
            guard error.code == EPIPE else { return }
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
    }
}
