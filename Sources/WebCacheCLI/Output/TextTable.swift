/// A plain text table for terminal output: a header row and left-aligned columns, except those
/// marked as numeric, which are right-aligned; two spaces between columns, no trailing spaces.
struct TextTable {
    /// The column titles.
    var headers: [String]
    /// Which columns hold numbers and are right-aligned.
    var numericColumns: Set<Int> = []
    /// The rows, each with one cell per column.
    var rows: [[String]] = []

    init(headers: [String], numericColumns: Set<Int> = []) {
        self.headers = headers
        self.numericColumns = numericColumns
    }

    mutating func append(_ row: [String]) {
        precondition(row.count == headers.count, "A table row needs \(headers.count) cells, not \(row.count).")
        rows.append(row)
    }

    /// The table's text, each line indented by `indent` and ended by a newline.
    func render(indent: String = "  ") -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            let cells = row.indices.map { column -> String in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                if numericColumns.contains(column) { return padding + row[column] }
                return column == row.count - 1 ? row[column] : row[column] + padding
            }
            let line = indent + cells.joined(separator: "  ")
            return String(line.reversed().drop(while: { $0 == " " }).reversed()) + "\n"
        }.joined()
    }
}
