enum FormatsBenchmarkError: Error, CustomStringConvertible {
    case wrongRecordCount(reader: String, file: String)
    case unexpectedStatus(Int32, command: String)

    var description: String {
        switch self {
        case .wrongRecordCount(let reader, let file): "\(reader) did not read every record of \(file), or failed"
        case .unexpectedStatus(let status, let command): "\(command) exited with \(status), expected 1 (different)"
        }
    }
}
