extension Duration {
    /// As milliseconds with three decimals.
    var milliseconds: String {
        (Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18).milliseconds
    }
}
