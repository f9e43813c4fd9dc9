import ListSyncProtocol

/// How many bytes at the start and at the end of a version's file are those of the version
/// before it, `previous`, as the incremental reader found by keeping its chunks there (their
/// XXH3-128, the same evidence the diff's ``ListDiff/KnownEqualEnds`` rests on).
///
/// The state's journal entry (``ByteDelta``) starts comparing the two versions' bytes from
/// there, so that a one-row version costs comparisons of the changed chunks, not of the file.
/// The bytes themselves are ``FileBytes``: a version read after a small change holds its shared
/// ends as slices of the version before's storage, which the comparisons take as equal without
/// reading them even where these ends are not known.
struct UnchangedByteEnds: Sendable, Equatable {
    /// The version whose bytes these ends are.
    var previous: Cursor
    /// The bytes both files start with (at most the shorter file's length, less ``suffix``).
    var prefix: Int
    /// The bytes both files end with.
    var suffix: Int
}
