import ArgumentParser
import ListFormats

/// ``RaggedRowPolicy`` as the command line names it.
enum RaggedRowOption: String, CaseIterable, ExpressibleByArgument {
    case error
    case pad
    case truncate

    var policy: RaggedRowPolicy {
        switch self {
        case .error: .error
        case .pad: .pad
        case .truncate: .truncate
        }
    }
}
