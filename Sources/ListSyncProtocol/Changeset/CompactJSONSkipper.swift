/// Steps over compact JSON text (no whitespace between tokens, as the protocol's encoders write
/// it) without decoding it: where a string or a value ends. ``ChangesetParts`` cuts a line with it.
struct CompactJSONSkipper {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int

    /// Steps over `byte` if it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        guard self.position < self.bytes.endIndex, self.bytes[self.position] == byte else { return false }
        self.position += 1
        return true
    }

    /// Whether `marker` comes next.
    func upcoming(_ marker: [UInt8]) -> Bool {
        self.position + marker.count <= self.bytes.endIndex
            && self.bytes[self.position..<(self.position + marker.count)].elementsEqual(marker)
    }

    /// Steps over a string, quotes included.
    mutating func skipString() -> Bool {
        guard self.take(UInt8(ascii: "\"")) else { return false }
        while self.position < self.bytes.endIndex {
            switch self.bytes[self.position] {
            case UInt8(ascii: "\\"): self.position += 2
            case UInt8(ascii: "\""):
                self.position += 1
                return true
            default: self.position += 1
            }
        }
        return false
    }

    /// Steps over one value: a string, a container up to where its brackets close (strings in it
    /// skipped whole), or a scalar up to the next `,`, `]` or `}`.
    mutating func skipValue() -> Bool {
        guard self.position < self.bytes.endIndex else { return false }
        switch self.bytes[self.position] {
        case UInt8(ascii: "\""):
            return self.skipString()
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            var depth = 0
            while self.position < self.bytes.endIndex {
                switch self.bytes[self.position] {
                case UInt8(ascii: "\""):
                    guard self.skipString() else { return false }
                    continue
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 {
                        self.position += 1
                        return true
                    }
                default:
                    break
                }
                self.position += 1
            }
            return false
        default:
            let start = self.position
            while self.position < self.bytes.endIndex,
                ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(self.bytes[self.position])
            {
                self.position += 1
            }
            return self.position > start
        }
    }
}
