/// The default stream and subject of a watch (docs/PROTOCOL.md, "The NATS transport").
public enum JetStreamNames {
    /// `LISTSYNC_<watch>`: one stream per watch, its name made of the characters stream names allow.
    public static func stream(ofWatch watch: String) -> String {
        "LISTSYNC_" + self.token(watch)
    }

    /// `listsync.<watch>`: the subject a watch's messages are published to.
    public static func subject(ofWatch watch: String) -> String {
        "listsync." + self.token(watch)
    }

    /// `name` with every character but ASCII letters, digits, `-` and `_` replaced by `_`
    /// (`.`, `*`, `>`, spaces and `/` have meanings in subjects and stream names).
    static func token(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_": return scalar
            default: return "_"
            }
        }))
    }
}
