// The bodies and their strict decoding live in APIBodies (no Hummingbird, so the fuzzer can
// build them alone); re-exported so every route sees them as before.
@_exported import APIBodies
import Foundation
import Hummingbird

extension Request {
    /// Decodes the (already size-limited) body as `T`, strictly; refusals become 400s naming the field.
    func decodeStrict<T: StrictBody>(_ type: T.Type, context: some RequestContext) async throws -> T {
        var buffer = try await body.collect(upTo: APILimits.maxBodyBytes)
        let data = buffer.readData(length: buffer.readableBytes) ?? Data()
        do {
            return try StrictJSON.decodeBody(T.self, from: data)
        } catch let error as BodyError {
            throw APIError(error)
        }
    }
}

extension APIError {
    init(_ error: BodyError) {
        switch error {
        case .invalidJSON(let message): self = .invalidJSON(message)
        case .invalidField(let field, let problem): self = .invalidField(field, problem)
        }
    }
}
