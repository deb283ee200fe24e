import Foundation
import Testing

/// Every document the code and the docs cite (`BENCHMARKS.md`, `docs/SIMULATOR.md`, …) is a file
/// in the repository: a citation of a file that was never committed (as the old design notes were) fails.
@Suite("Cited documents exist")
struct CitationTests {
    static let root = ArchitectureGraphTests.root
    /// Where citations are looked for (text the repository keeps; build output excluded).
    static let places = ["Sources", "Tests", "Benchmarks", "scripts", "docs", "deploy", "fixtures"]
    static let textExtensions: Set<String> = ["swift", "md", "py", "sh", "yaml", "yml", "json", "txt", "toml"]

    @Test func everyCitedMarkdownFileExists() throws {
        var files = ["README.md", "BENCHMARKS.md", "RELIABILITY.md", "SECURITY.md", "openapi.yaml", "Makefile"]
            .map { Self.root.appendingPathComponent($0) }
        for place in Self.places {
            let base = Self.root.appendingPathComponent(place)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where Self.textExtensions.contains(url.pathExtension) {
                files.append(url)
            }
        }
        var missing: [String] = []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for match in text.matches(of: /(?:^|[^A-Za-z0-9_\/.-])((?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_-]+\.md)\b/) {
                let cited = String(match.1)
                let candidates = [Self.root.appendingPathComponent(cited),
                                  Self.root.appendingPathComponent("docs").appendingPathComponent(cited),
                                  file.deletingLastPathComponent().appendingPathComponent(cited)]
                if !candidates.contains(where: { FileManager.default.fileExists(atPath: $0.path) }) {
                    missing.append("\(file.path.replacingOccurrences(of: Self.root.path + "/", with: "")): \(cited)")
                }
            }
        }
        #expect(files.count > 100, "only \(files.count) files read")
        #expect(missing.isEmpty, "cited but not in the repository:\n\(missing.joined(separator: "\n"))")
    }
}
