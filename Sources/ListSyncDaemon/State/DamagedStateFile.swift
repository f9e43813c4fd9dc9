/// A state file that ``WatchStateStore/restore(for:)`` could not use, and what was done with it,
/// so the log says exactly what was found and what happened — never a move that did not happen.
struct DamagedStateFile: Sendable, CustomStringConvertible {
    /// What became of the file.
    enum Handling: Sendable {
        /// Renamed to `<file>.damaged`, where it can be examined.
        case movedAside(to: String)
        /// There was no file to move (it is missing, or the directory has no entry for it).
        case absent
        /// The rename failed: the file is where it was.
        case notMoved(StateFileError)
    }

    /// The file and what is wrong with it.
    var damage: StateDamage
    var handling: Handling

    /// Moves the file `damage` names aside and records how that went.
    static func setAside(_ damage: StateDamage) -> DamagedStateFile {
        do throws(StateFileError) {
            let moved = try StateFile.moveAside(damage.path)
            return DamagedStateFile(damage: damage, handling: moved ? .movedAside(to: damage.path + ".damaged") : .absent)
        } catch {
            return DamagedStateFile(damage: damage, handling: .notMoved(error))
        }
    }

    /// What was done, for the log: "moved aside to …", "nothing to move", "could not be moved aside (…); left in place".
    var handlingDescription: String {
        switch self.handling {
        case .movedAside(let path): return "moved aside to \(path)"
        case .absent: return "there is no such file, nothing was moved"
        case .notMoved(let error): return "it could not be moved aside (\(error)) and is left in place"
        }
    }

    var description: String { "\(self.damage); \(self.handlingDescription)" }
}
