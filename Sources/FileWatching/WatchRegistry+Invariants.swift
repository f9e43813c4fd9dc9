extension WatchRegistry {
    /// Checks that files, directories and descriptors agree (debug builds only). O(*n*).
    func _checkInvariants() {
        #if DEBUG
        for (path, file) in files {
            precondition(file.path.path == path, "file \(path) is stored under another path")
            precondition(file.watchCount > 0, "file \(path) is kept with no watches")
            precondition(directories[file.path.directory]?.files.contains(file.path.name) == true, "file \(path) is missing from its directory's entries")
            for alias in file.links.aliases {
                precondition(aliases[alias]?.contains(path) == true, "alias \(alias) of \(path) does not list it")
            }
        }
        for (alias, targets) in aliases {
            precondition(!targets.isEmpty, "alias \(alias) is kept for no file")
            for target in targets {
                precondition(files[target]?.links.aliases.contains(alias) == true, "alias \(alias) lists \(target), which does not have it")
            }
            if let path = try? WatchedPath(alias) {
                precondition(directories[path.directory]?.files.contains(path.name) == true, "alias \(alias) is missing from its directory's entries")
            }
        }
        for (directory, entry) in directories {
            precondition(!entry.isUnused, "directory \(directory) is kept though nothing needs it")
            for name in entry.files {
                let entry = WatchedPath.entry(name, in: directory)
                precondition(files[entry] != nil || aliases[entry] != nil, "directory \(directory) lists \(name), which is not watched")
            }
            for waiter in entry.waiters {
                precondition(directories[waiter]?.state == .absent(waitingOn: directory), "\(waiter) is listed as waiting on \(directory) but does not")
            }
            switch entry.state {
            case .watched(let descriptor, _):
                precondition(directoriesByDescriptor[descriptor]?.contains(directory) == true, "\(descriptor) does not map back to \(directory)")
            case .absent(let ancestor):
                precondition(entry.waiters.isEmpty, "absent directory \(directory) has waiters; they should wait on a watched ancestor")
                if let ancestor {
                    precondition(directories[ancestor]?.waiters.contains(directory) == true, "\(directory) waits on \(ancestor), which does not list it")
                    guard case .watched = directories[ancestor]?.state else {
                        preconditionFailure("\(directory) waits on \(ancestor), which is not watched")
                    }
                }
            }
        }
        for (descriptor, mapped) in directoriesByDescriptor {
            precondition(!mapped.isEmpty, "\(descriptor) is kept with no directories")
            for directory in mapped {
                guard case .watched(descriptor, _) = directories[directory]?.state else {
                    preconditionFailure("\(descriptor) maps to \(directory), which is not watched under it")
                }
            }
        }
        #endif
    }
}
