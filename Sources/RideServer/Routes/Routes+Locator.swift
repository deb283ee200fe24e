import Foundation
import Hummingbird
import RideRules
import RideStore

/// `POST /v1/rides/{id}/locator`: the passenger, near the car but unsure of its direction, asks
/// the driver's device to sound its locator ticks. The request is an event on the ride's stream
/// (`locator_requested`), which the driver's device follows; nothing else changes.
struct LocatorRoutes<Context: RideRequestContext>: Sendable {
    let store: any KerbStore
    let rides: RideLookup
    let metrics: ServerMetrics
    let locator: LocatorConfiguration
    let now: @Sendable () -> Date

    func addRoutes(to routes: RouteRegistrar<Context>) {
        routes.post("/rides/{id}/locator", use: requestLocator)
    }

    /// Checks in the order openapi.yaml documents: role, ride, the ride's own passenger,
    /// state, then how recently the last request was made (per ride, across servers: the
    /// store decides in one transaction).
    @Sendable func requestLocator(_ request: Request, context: Context) async throws -> EditedResponse<LocatorRequest> {
        let account = try context.caller(for: .requestLocator, to: "ask the car to sound its locator")
        _ = try await request.decodeStrict(EmptyBody.self, context: context)
        // Another's ride answers exactly like one that does not exist (no existence oracle).
        let (ride, _) = try await rides.ride(try context.parameters.require("id"), account, for: .requestLocator)
        let now = now()
        let recording: LocatorRecording
        do {
            recording = try await store.requestLocator(rideID: ride.id, by: account.id, at: now, minimumInterval: locator.minimumInterval)
        } catch StoreError.limitReached(let message) {
            throw APIError(.conflict, code: .rideEventLimit, message)
        } catch let error as StoreError {
            throw APIError(error)
        }
        switch recording {
        case .wrongState(let state):
            throw APIError(.conflict, code: .wrongState,
                           "the ride is \(state.rawValue); the car sounds its locator only while it is arrived", state: state)
        case .tooSoon(_, let retryAfter):
            metrics.recordRateLimited(.locator)
            throw APIError.rateLimited(retryAfter: max(1, Int(retryAfter.rounded(.up))),
                                       "the car's locator was asked for less than \(Int(locator.minimumInterval)) s ago")
        case .recorded(let event):
            context.logger.info("locator requested", metadata: ["ride_id": .string(ride.id)])
            let answer = LocatorRequest(eventID: event.id, rideID: ride.id, requestedAt: event.at, soundSeconds: locator.soundSeconds,
                                        nextAllowedAt: event.at.addingTimeInterval(locator.minimumInterval))
            return EditedResponse(status: .accepted, response: answer)
        }
    }
}

/// How often a passenger may ask for the locator sound, and how long the car sounds it.
public struct LocatorConfiguration: Sendable {
    /// Least time between two requests of one ride, s: the car is already ticking for
    /// `soundSeconds`, so asking more often only floods the driver's stream.
    public var minimumInterval: Double = LocatorRule.minimumInterval
    /// How long the driver's device ticks after a request (it stops earlier at the touch), s.
    public var soundSeconds = LocatorRule.soundSeconds

    public init(minimumInterval: Double = LocatorRule.minimumInterval, soundSeconds: Int = LocatorRule.soundSeconds) {
        self.minimumInterval = minimumInterval
        self.soundSeconds = soundSeconds
    }
}
