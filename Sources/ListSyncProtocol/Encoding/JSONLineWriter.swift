import ListFormats

/// Writes one protocol line: a JSON object built member by member, ended by `\n`.
///
/// The writer tracks where a comma is due, so encoders read as a list of members. Strings and
/// values are written by ListFormats' JSON writer (``JSONText``), the one that list files and
/// record hashes use: control characters, `"` and `\` escaped, so no line ever contains a raw
/// newline. Pre-encoded JSON — a changeset's `stages`, a record's value — is appended as is with
/// ``rawValue(_:)``, which is how a changeset is encoded once and reused.
struct JSONLineWriter {
    private(set) var bytes: [UInt8]
    /// Whether the container being written already has an element (a comma is due before the next).
    private var hasElement: [Bool] = [false]

    /// Starts a line with `{"type":"<type>"` and, for pushed messages, `"push":true`.
    init(type: String, push: Bool = false, capacity: Int = 256) {
        self.bytes = []
        self.bytes.reserveCapacity(capacity)
        self.bytes.append(UInt8(ascii: "{"))
        self.member("type", type)
        if push {
            self.member("push", true)
        }
    }

    /// The bytes written so far; approximately the size of the line.
    var count: Int { self.bytes.count }

    /// Closes the object and ends the line.
    ///
    /// Mutating, not consuming: a consuming call on a `var` writer may pass a copy of it, and
    /// the two bytes appended then copied the whole line (a 27 MB changeset line, issue 19); the
    /// line returned shares the writer's storage.
    mutating func finish() -> [UInt8] {
        precondition(self.hasElement.count == 1, "a nested container is still open")
        self.bytes.append(UInt8(ascii: "}"))
        self.bytes.append(UInt8(ascii: "\n"))
        return self.bytes
    }

    // MARK: - Members of the current object

    mutating func member(_ name: String, _ value: String) {
        self.key(name)
        JSONText.appendString(value, to: &self.bytes)
    }

    mutating func member(_ name: String, _ value: Bool) {
        self.key(name)
        self.bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func member(_ name: String, _ value: some BinaryInteger) {
        self.key(name)
        self.bytes.append(contentsOf: String(value).utf8)
    }

    /// A member holding a content hash as 32 lowercase hex digits, high half first (as
    /// `ContentHash.description` spells it), written without an intermediate string.
    mutating func member(_ name: String, _ hash: ContentHash) {
        self.key(name)
        let digits: StaticString = "0123456789abcdef"
        self.bytes.append(UInt8(ascii: "\""))
        for half in [hash.high, hash.low] {
            for shift in stride(from: 60, through: 0, by: -4) {
                self.bytes.append(digits.utf8Start[Int((half >> UInt64(shift)) & 0xF)])
            }
        }
        self.bytes.append(UInt8(ascii: "\""))
    }

    mutating func member(_ name: String, _ value: ListValue) {
        self.key(name)
        self.value(value)
    }

    /// A member whose value is `null`.
    mutating func nullMember(_ name: String) {
        self.key(name)
        self.bytes.append(contentsOf: "null".utf8)
    }

    /// A member whose value `body` appends as JSON text, in place.
    mutating func member(_ name: String, writing body: (inout [UInt8]) -> Void) {
        self.key(name)
        body(&self.bytes)
    }

    /// A member whose value is already encoded JSON.
    mutating func rawMember(_ name: String, _ json: some Sequence<UInt8>) {
        self.key(name)
        self.bytes.append(contentsOf: json)
    }

    /// A member whose JSON `write` appends, straight into the line.
    mutating func rawMember(_ name: String, writtenBy write: (inout [UInt8]) -> Void) {
        self.key(name)
        write(&self.bytes)
    }

    /// A member holding an array of strings.
    mutating func member(_ name: String, strings: [String]) {
        self.array(name) { writer in
            for string in strings { writer.element(string) }
        }
    }

    /// A member holding an object whose members `body` writes.
    mutating func object(_ name: String, _ body: (inout JSONLineWriter) -> Void) {
        self.key(name)
        self.nested(open: "{", close: "}", body)
    }

    /// A member holding an array whose elements `body` writes.
    mutating func array(_ name: String, _ body: (inout JSONLineWriter) -> Void) {
        self.key(name)
        self.nested(open: "[", close: "]", body)
    }

    // MARK: - Elements of the current array

    mutating func element(_ value: String) {
        self.separate()
        JSONText.appendString(value, to: &self.bytes)
    }

    mutating func element(_ value: some BinaryInteger) {
        self.separate()
        self.bytes.append(contentsOf: String(value).utf8)
    }

    /// An element that is an object whose members `body` writes.
    mutating func objectElement(_ body: (inout JSONLineWriter) -> Void) {
        self.separate()
        self.nested(open: "{", close: "}", body)
    }

    // MARK: - Values

    /// Appends `value` as compact JSON, numbers as their literal text, as ListFormats writes it
    /// (``JSONText``).
    mutating func value(_ value: ListValue) {
        JSONText.append(value, to: &self.bytes)
    }

    // MARK: - Structure

    private mutating func key(_ name: String) {
        self.separate()
        JSONText.appendString(name, to: &self.bytes)
        self.bytes.append(UInt8(ascii: ":"))
    }

    private mutating func separate() {
        if self.hasElement[self.hasElement.count - 1] {
            self.bytes.append(UInt8(ascii: ","))
        } else {
            self.hasElement[self.hasElement.count - 1] = true
        }
    }

    private mutating func nested(open: Unicode.Scalar, close: Unicode.Scalar, _ body: (inout JSONLineWriter) -> Void) {
        self.bytes.append(UInt8(ascii: open))
        self.hasElement.append(false)
        body(&self)
        self.hasElement.removeLast()
        self.bytes.append(UInt8(ascii: close))
    }
}
