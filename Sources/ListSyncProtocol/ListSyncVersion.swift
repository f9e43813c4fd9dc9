/// The version of ListSync's programs: what `listsync --version` and `listsyncd --version`
/// print, and the names they give each other in `hello` — one number for the whole release.
public enum ListSyncVersion {
    /// The release, `major.minor`.
    public static let current = "0.1"
}
