/// Picking a person (or a token) from what someone typed, wherever a command takes one: the
/// exact id, else the exact name (any case), else a unique start of the id (a token's six-
/// character handle is one). Anything else is one sentence that lists the candidates and asks
/// which one, so "Ben" works and nobody copies a 36-character id.
struct WhichOne<Item> {
    /// "driver", "account", "token": what the sentence calls an item.
    var kind: String
    var items: [Item]
    var id: (Item) -> String
    /// What the item is called (a person's name, a token's device); nil when it has none.
    var name: (Item) -> String?
    /// The item in a listing: "Ben (blue Prius, 1a2b3c)".
    var describe: (Item) -> String
    /// Where the whole list is, for a sentence that cannot list everyone.
    var listCommand: String

    /// The shortest start of an id accepted on its own (a handle is six).
    static var minimumPrefix: Int { 4 }
    /// Listings longer than this name the list command instead.
    static var maximumListed: Int { 8 }

    func pick(_ typed: String) throws(CommandLineFailure) -> Item {
        let text = typed.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw CommandLineFailure("say which \(kind): a name or the start of an id (see `\(listCommand)`)") }
        if let exact = items.first(where: { id($0) == text }) { return exact }
        let named = items.filter { name($0)?.caseInsensitiveCompare(text) == .orderedSame }
        if named.count == 1 { return named[0] }
        if named.count > 1 {
            throw CommandLineFailure("\(named.count) \(kind)s are called \(text): \(listing(named)); which one? Give the start of its id, like \(handle(named[0]))")
        }
        if text.count >= Self.minimumPrefix {
            let started = items.filter { id($0).lowercased().hasPrefix(text.lowercased()) }
            if started.count == 1 { return started[0] }
            if started.count > 1 {
                // Their ids, long enough to differ: a handle alone can be what they share.
                let longer = started.map { "\(describe($0)) id \(id($0).prefix(text.count + 4))" }.joined(separator: ", ")
                throw CommandLineFailure("\(started.count) \(kind)s start with \(text): \(longer); which one? Give more of its id")
            }
        }
        let similar = items.filter { name($0)?.range(of: text, options: .caseInsensitive) != nil }
        let offered = similar.isEmpty ? items : similar
        guard !offered.isEmpty else { throw CommandLineFailure("there is no \(kind) called \(text), and no \(kind) at all yet") }
        guard offered.count <= Self.maximumListed else {
            throw CommandLineFailure("no \(kind) is called \(text); which one? `\(listCommand)` lists them")
        }
        throw CommandLineFailure("no \(kind) is called \(text); which one? \(listing(offered))")
    }

    func handle(_ item: Item) -> String { String(id(item).prefix(6)) }

    private func listing(_ some: [Item]) -> String {
        some.map(describe).joined(separator: ", ")
    }
}
