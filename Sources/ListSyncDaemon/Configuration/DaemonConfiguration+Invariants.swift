extension DaemonConfiguration {
    /// Checks, in debug builds, what the loader guarantees about a configuration it returns.
    func _checkInvariants() {
        #if DEBUG
        precondition(self.socketPath.hasPrefix("/"), "the socket path is absolute")
        precondition(self.stateDirectory.hasPrefix("/"), "the state directory is absolute")
        precondition(self.socketMode <= 0o777, "the socket mode holds permission bits only")
        precondition(self.historyLength >= 1, "at least one changeset of history is kept")
        precondition(
            self.watcher.reconciliationInterval > .zero && self.heartbeatInterval > .zero,
            "intervals are positive"
        )
        precondition(
            [self.watcher.closeSettleDelay, self.watcher.modifySettleDelay, self.watcher.disappearanceSettleDelay]
                .allSatisfy { $0 >= .zero },
            "settle delays are not negative"
        )
        precondition(Set(self.watches.map(\.name)).count == self.watches.count, "watch names are unique")
        for watch in self.watches {
            precondition(WatchConfiguration.isValidName(watch.name), "watch names are valid")
            precondition(
                watch.path.hasPrefix("/") && ConfigurationPath.normalize(watch.path) == watch.path,
                "watch paths are absolute and normalised"
            )
            precondition(Set(watch.key).count == watch.key.count, "key columns are distinct")
            precondition(Set(watch.ignore).isDisjoint(with: watch.key), "key columns are not ignored")
        }
        #endif
    }
}
