enum FormatsBenchmarkError: Error, CustomStringConvertible {
    case wrongRecordCount(reader: String, file: String)
    case unexpectedStatus(Int32, command: String)
    case cannotRun(String, reason: String)

    var description: String {
        switch self {
        case .wrongRecordCount(let reader, let file): "\(reader) did not read every record of \(file), or failed"
        case .unexpectedStatus(let status, let command): "\(command) exited with \(status), expected 1 (different)"
        case .cannotRun(let executable, let reason): "cannot run \(executable): \(reason)"
        }
    }
}
