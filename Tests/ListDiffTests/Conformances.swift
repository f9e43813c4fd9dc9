import ListDiff

// As a DifferenceKit user would write them: a hashable value is its own identity.
extension String: Differentiable {}
extension Character: Differentiable {}
extension Int: Differentiable {}
