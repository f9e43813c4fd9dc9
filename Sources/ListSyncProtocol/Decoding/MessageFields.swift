import ListFormats

/// Typed access to the members of a message (or of an object inside one), throwing
/// `bad_request` errors that name the field, what was expected and what was found.
///
/// Unknown members are ignored, as the protocol requires: readers only ask for the names they know.
struct MessageFields {
    private let members: [ListValue.Member]
    /// Where the object is in the message, e.g. `watches[2]`; empty for the message itself.
    private var path: String { Self.path(self.container, element: self.element) }
    /// The path of the object, or of the array it is element ``element`` of: spelled out only for
    /// an error, not for each of a snapshot's million records.
    private let container: String
    private let element: Int?
    /// The id of the request being decoded, copied into errors.
    let requestID: RequestID?

    /// The fields of `value`, which must be an object.
    init(_ value: ListValue, path: String = "", requestID: RequestID? = nil) throws(ProtocolError) {
        try self.init(value, container: path, element: nil, requestID: requestID)
    }

    /// The fields of `value`, element `element` of the array at `container` (or, with `element`
    /// `nil`, the object at `container`).
    private init(_ value: ListValue, container: String, element: Int?, requestID: RequestID?) throws(ProtocolError) {
        self.container = container
        self.element = element
        guard case .object(let members) = value else {
            let path = Self.path(container, element: element)
            let what = path.isEmpty ? "a message" : "\"\(path)\""
            throw ProtocolError(.badRequest, "\(what) must be a JSON object, not \(value.kindDescription)", requestID: requestID)
        }
        self.members = members
        self.requestID = requestID
    }

    /// `container`, or its element `element`: `watches[2]`.
    private static func path(_ container: String, element: Int?) -> String {
        element.map { "\(container)[\($0)]" } ?? container
    }

    /// The member's value; `nil` when it is absent or `null` (the protocol treats both alike).
    func optional(_ name: String) -> ListValue? {
        guard let value = self.members.first(where: { $0.name == name })?.value, value != .null else { return nil }
        return value
    }

    func required(_ name: String) throws(ProtocolError) -> ListValue {
        guard let value = self.optional(name) else {
            throw self.error("missing field \"\(self.qualified(name))\"")
        }
        return value
    }

    func string(_ name: String) throws(ProtocolError) -> String {
        try self.expectString(name, self.required(name))
    }

    func optionalString(_ name: String) throws(ProtocolError) -> String? {
        guard let value = self.optional(name) else { return nil }
        return try self.expectString(name, value)
    }

    func bool(_ name: String) throws(ProtocolError) -> Bool {
        guard case .bool(let bool) = try self.required(name) else {
            throw self.wrongType(name, expected: "true or false")
        }
        return bool
    }

    /// An integer in `range`, written without fraction or exponent.
    func integer<Integer: FixedWidthInteger>(_ name: String, as type: Integer.Type = Int.self) throws(ProtocolError) -> Integer {
        try self.expectInteger(name, self.required(name))
    }

    func optionalInteger<Integer: FixedWidthInteger>(_ name: String, as type: Integer.Type = Int.self) throws(ProtocolError) -> Integer? {
        guard let value = self.optional(name) else { return nil }
        return try self.expectInteger(name, value)
    }

    func array(_ name: String) throws(ProtocolError) -> [ListValue] {
        guard case .array(let elements) = try self.required(name) else {
            throw self.wrongType(name, expected: "an array")
        }
        return elements
    }

    /// The fields of the object in member `name`.
    func object(_ name: String) throws(ProtocolError) -> MessageFields {
        try MessageFields(self.required(name), path: self.qualified(name), requestID: self.requestID)
    }

    /// The fields of each object in the array in member `name`.
    func objects(_ name: String) throws(ProtocolError) -> [MessageFields] {
        var result: [MessageFields] = []
        let array = try self.array(name)
        result.reserveCapacity(array.count)
        let container = self.qualified(name)
        for (index, element) in array.enumerated() {
            result.append(try MessageFields(element, container: container, element: index, requestID: self.requestID))
        }
        return result
    }

    func strings(_ name: String) throws(ProtocolError) -> [String] {
        var result: [String] = []
        for (index, element) in try self.array(name).enumerated() {
            result.append(try self.expectString("\(name)[\(index)]", element))
        }
        return result
    }

    /// A string member converted by `parse`; `nil` from `parse` is a `code` error.
    func parsed<Value>(
        _ name: String, as what: String, code: ProtocolErrorCode = .badRequest, _ parse: (String) -> Value?
    ) throws(ProtocolError) -> Value {
        let text = try self.string(name)
        guard let value = parse(text) else {
            throw ProtocolError(code, "\"\(self.qualified(name))\" is not \(what): \"\(text)\"", requestID: self.requestID)
        }
        return value
    }

    /// Like ``parsed(_:as:code:_:)``, for an optional member.
    func optionalParsed<Value>(
        _ name: String, as what: String, code: ProtocolErrorCode = .badRequest, _ parse: (String) -> Value?
    ) throws(ProtocolError) -> Value? {
        guard self.optional(name) != nil else { return nil }
        return try self.parsed(name, as: what, code: code, parse)
    }

    func error(_ message: String) -> ProtocolError {
        ProtocolError(.badRequest, message, requestID: self.requestID)
    }

    // MARK: - Checks

    private func expectString(_ name: String, _ value: ListValue) throws(ProtocolError) -> String {
        guard case .string(let string) = value else {
            throw self.wrongType(name, expected: "a string", found: value)
        }
        return string
    }

    private func expectInteger<Integer: FixedWidthInteger>(_ name: String, _ value: ListValue) throws(ProtocolError) -> Integer {
        guard case .number(let literal) = value else {
            throw self.wrongType(name, expected: "an integer", found: value)
        }
        guard let integer = Integer(literal) else {
            throw self.error("field \"\(self.qualified(name))\" must be an integer from \(Integer.min) to \(Integer.max), not \(literal)")
        }
        return integer
    }

    private func wrongType(_ name: String, expected: String) -> ProtocolError {
        self.wrongType(name, expected: expected, found: self.optional(name) ?? .null)
    }

    private func wrongType(_ name: String, expected: String, found: ListValue) -> ProtocolError {
        self.error("field \"\(self.qualified(name))\" must be \(expected), not \(found.kindDescription)")
    }

    private func qualified(_ name: String) -> String {
        self.path.isEmpty ? name : "\(self.path).\(name)"
    }
}

extension ListValue {
    /// What kind of JSON value this is, for error messages: `a string`, `an object`…
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
