extension Duration {
    /// The duration as floating-point seconds (timings in logs and the live clock).
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
