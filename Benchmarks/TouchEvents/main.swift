// Touch per pair and per event, leave one phone pair out, on herald-style trace folders.
// Usage: swift build -c release --product TouchEventBenchmark &&
//        .build/release/TouchEventBenchmark ../shared/data/herald [--pooled] [--k K]
//        .build/release/TouchEventBenchmark --walks ../shared/data/philotuxo
//        .build/release/TouchEventBenchmark ../shared/data/herald --step [--pcng ../shared/data/pcng] [--walks-too ../shared/data/philotuxo]
// `--step`: the step rule (issue 34), chosen on some phone pairs and scored on the others
// (StepMain.swift). Otherwise:
// The touch level rule (`TouchLevelRule`: step above the pair's 1 m level = offset + k·n) is
// chosen on every other phone pair and scored on the one left out, with the product's Ranger.
import BeaconCore
import Foundation

let args = CommandLine.arguments.dropFirst()
// `--walks FOLDER`: ranging for carried phones on real walks (philotuxo) instead.
if args.first == "--walks", let walks = args.dropFirst().first {
    do { try Carried.walks(folder: walks) } catch { FileHandle.standardError.write(Data("\(error)\n".utf8)); exit(1) }
    exit(0)
}
guard let folder = args.first(where: { !$0.hasPrefix("--") && Double($0) == nil }), FileManager.default.fileExists(atPath: folder + "/metadata.csv") else {
    FileHandle.standardError.write(Data("usage: TouchEventBenchmark HERALD_FOLDER (with metadata.csv)\n".utf8))
    exit(2)
}
let recordings: [Recording]
do { recordings = try Recordings.load(folder: folder).filter { $0.line != nil } } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
if args.contains("--step") {
    let pcng = args.firstIndex(of: "--pcng").flatMap { args.index(after: $0) < args.endIndex ? args[args.index(after: $0)] : nil }
    let walks = args.firstIndex(of: "--walks-too").flatMap { args.index(after: $0) < args.endIndex ? args[args.index(after: $0)] : nil }
    do { try StepBenchmark.run(recordings: recordings, pcng: pcng, walks: walks) } catch { FileHandle.standardError.write(Data("\(error)\n".utf8)); exit(1) }
    exit(0)
}
let pairs = Array(Set(recordings.map(\.pair))).sorted()
let table = StepTable(recordings)

func pct(_ x: Double) -> String { String(format: "%.2f %%", 100 * x) }
func share(_ a: Int, _ b: Int) -> String { b == 0 ? "–" : String(format: "%d/%d (%.1f %%)", a, b, 100 * Double(a) / Double(b)) }

struct Row {
    var samples = SampleCounts()
    var side = EventCounts()
    var mutual = EventCounts()
}

/// Scores recordings with a rule: per sample, per event on each side, and per event mutually
/// (the two sides of one test, both flagging within a second).
func score(_ recs: [Recording], rule: TouchLevelRule) -> Row {
    var row = Row()
    func threshold(_ r: Recording) -> Double { rule.threshold(for: r.line!) }
    for r in recs {
        row.samples = row.samples + sampleCounts(r, line: r.line!, threshold: threshold(r))
        for e in Events.touches(r).joined() { Events.score(touch: Events.flags(e, line: r.line!, threshold: threshold(r)), into: &row.side) }
        for e in Events.holds(r).joined() { Events.score(hold: Events.flags(e, line: r.line!, threshold: threshold(r)), into: &row.side) }
    }
    for (a, b) in sidesOfOneTest(recs) {
        for (pa, pb) in zip(Events.touches(a), Events.touches(b)) {
            for (ea, eb) in zip(pa, pb) {
                let m = Events.mutual(Events.flags(ea, line: a.line!, threshold: threshold(a)), Events.flags(eb, line: b.line!, threshold: threshold(b)))
                Events.score(touch: m, into: &row.mutual)
            }
        }
        for (pa, pb) in zip(Events.holds(a), Events.holds(b)) {
            for (ea, eb) in zip(pa, pb) {
                let m = Events.mutual(Events.flags(ea, line: a.line!, threshold: threshold(a)), Events.flags(eb, line: b.line!, threshold: threshold(b)))
                Events.score(hold: m, into: &row.mutual)
            }
        }
    }
    return row
}

func sidesOfOneTest(_ recs: [Recording]) -> [(Recording, Recording)] {
    Dictionary(grouping: recs, by: \.test).values.compactMap { sides in
        guard let a = sides.first(where: { $0.side == "A" }), let b = sides.first(where: { $0.side == "B" }) else { return nil }
        return (a, b)
    }
}

func printRow(_ label: String, _ rule: TouchLevelRule?, _ r: Row) {
    let s = r.samples
    let ruleText = rule.map { String(format: "%.1f + %.1f n", $0.offset, $0.perExponent) } ?? "each pair's own"
    print("| \(label) | \(ruleText) | \(pct(s.tpRate)) | \(pct(s.fa1030Rate)) | \(s.fa50)/\(s.far) | \(share(r.side.within1s, r.side.touches)) | \(share(r.side.triggered, r.side.holds)) | \(share(r.mutual.within1s, r.mutual.touches)) | \(share(r.mutual.triggered, r.mutual.holds)) |")
}

print("recordings: \(recordings.count), phone pairs: \(pairs.count)")
print("")
print("| left out | rule (dB above A) | tp 0–2 cm | fa 10–30 cm | fa ≥ 50 cm | 2 s touches ≤ 1 s | 10 s holds triggered | mutual touches ≤ 1 s | mutual holds triggered |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
// `--pooled`: choose on the training pairs' pooled counts (the default needs every training
// pair within the goals); `--k K`: only rules with K dB per unit n (0: one global step).
let everyPair = !args.contains("--pooled")
let ks = args.firstIndex(of: "--k").flatMap { args.index(after: $0) < args.endIndex ? Double(args[args.index(after: $0)]) : nil }
    .map { [$0] } ?? StepTable.perExponents
var total = Row()
for pair in pairs {
    let training = recordings.filter { $0.pair != pair }
    let rule = table.best(for: training, perExponents: ks, everyPair: everyPair)
    let r = score(recordings.filter { $0.pair == pair }, rule: rule)
    printRow(pair, rule, r)
    total.samples = total.samples + r.samples
    total.side = total.side + r.side
    total.mutual = total.mutual + r.mutual
}
printRow("**all, left out**", nil, total)
let fitted = table.best(for: recordings, perExponents: ks, everyPair: everyPair)
printRow("all pairs, fitted on all (in-sample)", fitted, score(recordings, rule: fitted))
printRow("all pairs, shipped rule", .default, score(recordings, rule: .default))
printRow("all pairs, model 5 cm + 3 dB (before)", .modelContact, score(recordings, rule: .modelContact))
print("")
Carried.fades(recordings)
