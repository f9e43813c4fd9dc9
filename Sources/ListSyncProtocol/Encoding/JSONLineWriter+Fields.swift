import ListFormats

/// The parts several messages share, written one way.
extension JSONLineWriter {
    mutating func requestID(_ id: RequestID?) {
        switch id {
        case .number(let literal): self.rawMember("id", literal.utf8)
        case .string(let string): self.member("id", string)
        case nil: self.nullMember("id")
        }
    }

    mutating func cursor(_ name: String, _ cursor: Cursor?) {
        if let cursor {
            self.member(name, cursor.description)
        } else {
            self.nullMember(name)
        }
    }

    mutating func schema(_ schema: ListSchema) {
        self.object("schema") { object in
            object.member("columns", strings: schema.columns)
        }
    }

    mutating func schemaUpdate(_ update: SchemaUpdate) {
        self.object("schema") { object in
            object.member("columns", strings: update.schema.columns)
            object.member("added", strings: update.change.added)
            object.member("removed", strings: update.change.removed)
            object.array("renamed") { array in
                for rename in update.change.renamed {
                    array.objectElement { pair in
                        pair.member("from", rename.from)
                        pair.member("to", rename.to)
                    }
                }
            }
            object.member("reordered", strings: update.change.reordered)
        }
    }

    mutating func watches(_ watches: [WatchSummary]) {
        self.array("watches") { array in
            for watch in watches {
                array.objectElement { object in
                    object.member("name", watch.name)
                    object.member("format", watch.format)
                    object.member("sectioned", watch.sectioned)
                    object.member("state", watch.state.rawValue)
                    object.cursor("cursor", watch.cursor)
                    if let rows = watch.rows {
                        object.member("rows", rows)
                    } else {
                        object.nullMember("rows")
                    }
                    object.array("key") { key in
                        for field in watch.key { key.element(field) }
                    }
                    object.warnings(watch.warnings)
                    if let path = watch.path { object.member("path", path) }
                    if let since = watch.since { object.member("since", since) }
                    if let error = watch.error { object.problem(error) }
                }
            }
        }
    }

    mutating func problem(_ problem: WatchProblem) {
        self.object("error") { object in
            object.problemMembers(problem)
        }
    }

    /// `warnings`, an array of problems, when there are any: absent otherwise, so that a status
    /// without warnings is the line it always was.
    mutating func warnings(_ warnings: [WatchProblem]) {
        guard !warnings.isEmpty else { return }
        self.array("warnings") { array in
            for warning in warnings {
                array.objectElement { object in
                    object.problemMembers(warning)
                }
            }
        }
    }

    /// `message`, and `line`, `column`, `offset` when the problem has a position.
    private mutating func problemMembers(_ problem: WatchProblem) {
        self.member("message", problem.message)
        if let position = problem.position {
            self.member("line", position.line)
            self.member("column", position.column)
            self.member("offset", position.byteOffset)
        }
    }
}
