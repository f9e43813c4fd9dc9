import ListFormats

/// libFuzzer's entry point for the JSON and NDJSON readers: format, key,
/// sections and ignored field come from the first byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONReader(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    ReaderCheck.run(UnsafeBufferPointer(start: data, count: count), formats: [.json, .ndjson])
    return 0
}
