/// Where JSON text is written: ListFormats' own ``ByteScratch``, or the byte arrays other modules
/// build their output in (``JSONText``). One escaper and one value encoder serve both, so that
/// everything ListSync writes spells a string the one way record hashes are defined over.
protocol JSONOutput: ~Copyable {
    /// Appends one byte.
    mutating func append(_ byte: UInt8)
    /// Appends `bytes` as they are.
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

extension ByteScratch: JSONOutput {}

extension Array: JSONOutput where Element == UInt8 {
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        self.append(contentsOf: bytes)
    }
}
