import ListFormats

/// libFuzzer's entry point for the CSV reader: delimiter, key, sections,
/// ignored column and ragged-row policy come from the first byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSVReader(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    ReaderCheck.run(
        UnsafeBufferPointer(start: data, count: count),
        formats: CSVDelimiter.allCases.map { ListFormat.csv(delimiter: $0) })
    return 0
}
