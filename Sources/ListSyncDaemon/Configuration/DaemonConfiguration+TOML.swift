#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TOMLKit

/// A configuration that loaded, with the warnings worth showing (no watches).
public struct LoadedConfiguration: Sendable, Hashable {
    /// The configuration.
    public var configuration: DaemonConfiguration
    /// Problems that did not stop the load, in file order.
    public var warnings: [ConfigurationProblem]

    /// Creates a loaded configuration.
    public init(configuration: DaemonConfiguration, warnings: [ConfigurationProblem]) {
        self.configuration = configuration
        self.warnings = warnings
    }
}

extension DaemonConfiguration {
    /// Reads and parses the TOML configuration file at `file`.
    ///
    /// A relative `file` is taken relative to the environment's working directory; relative
    /// paths inside it are taken relative to the file's own directory.
    ///
    /// - Throws: ``ConfigurationError`` with every problem found, each with its line and column.
    public static func load(file: String, environment: ProcessEnvironment) throws(ConfigurationError) -> LoadedConfiguration {
        let bytes: [UInt8]
        do {
            bytes = try ConfigurationFile.contents(of: ConfigurationPath.resolve(file, against: environment.workingDirectory))
        } catch {
            throw ConfigurationError(problems: [.unreadable(file: file, reason: error.description)])
        }
        return try self.parse(bytes: bytes, file: file, environment: environment)
    }

    /// Parses TOML text as if it were the contents of `file` (which names it in locations and
    /// anchors relative paths).
    ///
    /// - Throws: ``ConfigurationError`` with every problem found.
    public static func parse(
        toml: String,
        file: String,
        environment: ProcessEnvironment
    ) throws(ConfigurationError) -> LoadedConfiguration {
        try self.parse(bytes: Array(toml.utf8), file: file, environment: environment)
    }

    /// Parses the bytes of a TOML configuration named `file`.
    ///
    /// The bytes must be UTF-8 without NUL (TOMLKit would silently stop reading at a NUL); the
    /// TOML must parse; then every setting is checked, and all problems are reported together,
    /// ordered by position.
    ///
    /// - Complexity: O(*n*) in the size of the file.
    /// - Throws: ``ConfigurationError``.
    public static func parse(
        bytes: [UInt8],
        file: String,
        environment: ProcessEnvironment
    ) throws(ConfigurationError) -> LoadedConfiguration {
        let sourceMap = TOMLSourceMap(bytes: bytes)
        if let problem = Self.encodingProblem(in: bytes, sourceMap: sourceMap, file: file) {
            throw ConfigurationError(problems: [problem])
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: String(decoding: bytes, as: UTF8.self))
        } catch let error as TOMLParseError {
            let begin = error.source.begin
            let location = sourceMap.location(line: begin.line, column: begin.column, file: file)
            throw ConfigurationError(problems: [.syntax(message: error.description, at: location)])
        } catch {
            throw ConfigurationError(problems: [.syntax(message: "\(error)", at: sourceMap.location(ofByteOffset: 0, file: file))])
        }
        let absoluteFile = ConfigurationPath.resolve(file, against: environment.workingDirectory)
        var reader = ConfigurationReader(
            sourceMap: sourceMap,
            file: file,
            baseDirectory: ConfigurationPath.directory(of: absoluteFile),
            environment: environment
        )
        let configuration = reader.read(root)
        guard reader.errors.isEmpty else {
            throw ConfigurationError(problems: Self.inFileOrder(reader.errors))
        }
        configuration._checkInvariants()
        return LoadedConfiguration(configuration: configuration, warnings: Self.inFileOrder(reader.warnings))
    }

    /// The first invalid UTF-8 sequence or NUL byte, as a problem.
    private static func encodingProblem(in bytes: [UInt8], sourceMap: TOMLSourceMap, file: String) -> ConfigurationProblem? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1, encoded.first == 0 {
                    return .invalidEncoding(reason: "NUL byte", at: sourceMap.location(ofByteOffset: offset, file: file))
                }
                offset += encoded.count
            case .error(let length):
                return .invalidEncoding(
                    reason: "invalid UTF-8 (\(length) byte\(length == 1 ? "" : "s"))",
                    at: sourceMap.location(ofByteOffset: offset, file: file)
                )
            case .emptyInput:
                return nil
            }
        }
    }

    /// Problems sorted by position, those without one first, keeping the order of equals.
    private static func inFileOrder(_ problems: [ConfigurationProblem]) -> [ConfigurationProblem] {
        problems.enumerated()
            .sorted { ($0.element.location?.byteOffset ?? -1, $0.offset) < ($1.element.location?.byteOffset ?? -1, $1.offset) }
            .map(\.element)
    }
}
