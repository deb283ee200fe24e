import Foundation
import Testing

/// docs/ARCHITECTURE.md's dependency graph is Package.swift's, target for target: a module that
/// gains or loses a dependency fails here until the document says so. Both files are read as
/// text (no `swift package` process), so the test runs in the fast lane.
@Suite("ARCHITECTURE.md against Package.swift")
struct ArchitectureGraphTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyTargetsDependenciesAreTheGraphs() throws {
        let package = try PackageTargets.parse(try Self.read("Package.swift"))
        let graph = try ArchitectureGraph.parse(try Self.read("docs/ARCHITECTURE.md"))
        #expect(package.count > 10, "Package.swift parsed to \(package.count) targets")
        var disagreements: [String] = []
        for (name, dependencies) in package.sorted(by: { $0.key < $1.key }) {
            guard let drawn = graph[name] else {
                disagreements.append("\(name): in Package.swift, not in ARCHITECTURE.md's graph (\(dependencies))")
                continue
            }
            if drawn != dependencies {
                let missing = dependencies.subtracting(drawn), extra = drawn.subtracting(dependencies)
                disagreements.append("\(name): graph lacks \(missing.sorted()), has extra \(extra.sorted())")
            }
        }
        for name in Set(graph.keys).subtracting(package.keys).sorted() {
            disagreements.append("\(name): in ARCHITECTURE.md's graph, not a target in Package.swift")
        }
        #expect(disagreements.isEmpty, "ARCHITECTURE.md and Package.swift disagree:\n\(disagreements.joined(separator: "\n"))")
    }

    /// The parsers themselves, on text shaped like the real files.
    @Test func theParsersReadTargetsAndGraphLines() throws {
        let package = try PackageTargets.parse("""
            .target(name: "A", dependencies: ["B", .product(name: "Crypto", package: "swift-crypto")]),
            .target(name: "B"),
            .systemLibrary(name: "CX", pkgConfig: "x"),
            .executableTarget(name: "tool", dependencies: ["A"], path: "Tools/tool", exclude: ["a.py"]),
            .testTarget(name: "ATests", dependencies: ["A"]),
            """)
        #expect(package == ["A": ["B", "[Crypto]"], "B": [], "tool": ["A"]])
        let graph = try ArchitectureGraph.parse("""
            ## Dependency graph (Package.swift)

            ```
            A      ─► B, [Crypto,
                      Logging]
            B      ─► (Foundation only)
            benchmarks:
            T (Tests/) ─► A
            ```
            """)
        #expect(graph == ["A": ["B", "[Crypto]", "[Logging]"], "B": [], "T": ["A"]])
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }
}

/// Package.swift's `.target`, `.executableTarget` (test targets and system libraries left out):
/// each name with its dependencies, a package product as "[Product]".
enum PackageTargets {
    static func parse(_ text: String) throws -> [String: Set<String>] {
        var targets: [String: Set<String>] = [:]
        // Whole-line comments may hold brackets or quotes of their own.
        var rest = Substring(text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n"))
        while let start = rest.firstMatch(of: /\.(target|executableTarget)\(/) {
            let call = try balanced(rest[start.range.upperBound...], open: "(", close: ")")
            guard let name = call.firstMatch(of: /^\s*name:\s*"([^"]+)"/)?.1 else {
                throw ParseError("a target without a leading name: \(call.prefix(80))")
            }
            var dependencies: Set<String> = []
            if let list = call.firstMatch(of: /dependencies:\s*\[/) {
                var items = try balanced(call[list.range.upperBound...], open: "[", close: "]")
                for product in items.matches(of: /\.product\(\s*name:\s*"([^"]+)"[^)]*\)/) {
                    dependencies.insert("[\(product.1)]")
                }
                items = items.replacing(/\.product\([^)]*\)/, with: "")
                for target in items.matches(of: /"([^"]+)"/) { dependencies.insert(String(target.1)) }
            }
            targets[String(name)] = dependencies
            rest = rest[start.range.upperBound...]
        }
        return targets
    }

    /// The text up to the bracket that closes the one just opened (strings skipped).
    static func balanced(_ text: Substring, open: Character, close: Character) throws -> Substring {
        var depth = 1, inString = false
        for index in text.indices {
            let character = text[index]
            if character == "\"" { inString.toggle() }
            guard !inString else { continue }
            if character == open { depth += 1 }
            if character == close { depth -= 1; if depth == 0 { return text[..<index] } }
        }
        throw ParseError("unbalanced \(open)\(close) in Package.swift")
    }
}

/// The code block under ARCHITECTURE.md's "## Dependency graph": `Name ─► A, B, [Product, …]`,
/// continued on indented lines; "(…)" is a remark (no dependencies), a name's own "(Tests/)" too.
enum ArchitectureGraph {
    static func parse(_ text: String) throws -> [String: Set<String>] {
        guard let section = text.range(of: "## Dependency graph") else { throw ParseError("no '## Dependency graph' section") }
        let after = text[section.upperBound...]
        guard let open = after.range(of: "```\n"), let close = after[open.upperBound...].range(of: "```") else {
            throw ParseError("no code block under '## Dependency graph'")
        }
        var entries: [(name: String, text: String)] = []
        var closed = false
        for line in after[open.upperBound..<close.lowerBound].split(separator: "\n") {
            if line.first?.isWhitespace == false, let arrow = line.range(of: "─►") {
                let name = line[..<arrow.lowerBound].split(separator: " ").first.map(String.init) ?? ""
                entries.append((name, String(line[arrow.upperBound...])))
            } else if line.first?.isWhitespace == true, !entries.isEmpty, !closed {
                entries[entries.count - 1].text += " " + line
            } else {
                closed = true  // an unindented line without an arrow is a heading between entries
                continue
            }
            closed = false
        }
        var graph: [String: Set<String>] = [:]
        for entry in entries {
            var dependencies: Set<String> = []
            let plain = entry.text.replacing(/\([^)]*\)/, with: "")
            var external = false
            for piece in plain.split(separator: ",") {
                var item = piece.trimmingCharacters(in: .whitespaces)
                if item.hasPrefix("[") { external = true; item.removeFirst() }
                let closes = item.hasSuffix("]")
                if closes { item.removeLast() }
                item = item.trimmingCharacters(in: .whitespaces)
                if !item.isEmpty { dependencies.insert(external ? "[\(item)]" : item) }
                if closes { external = false }
            }
            graph[entry.name] = dependencies
        }
        return graph
    }
}

struct ParseError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
