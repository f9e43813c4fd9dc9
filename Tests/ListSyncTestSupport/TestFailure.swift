/// A test helper's failure, with what went wrong.
package struct TestFailure: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
