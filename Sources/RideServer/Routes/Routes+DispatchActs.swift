import APIBodies
import Foundation
import HTTPTypes
import Hummingbird
import RideRules
import RideStore

/// The dispatcher page's acts: assigning a waiting request to a free driver, and cancelling a
/// request or a ride. A cancellation is two steps, a page that asks why and then the post, so
/// no single Enter cancels anyone's ride; the reason is kept in the history.
extension DispatcherPageRoutes {
    @Sendable func cancelRideConfirmation(_ request: Request, context: Context) async throws -> Response {
        let (_, token) = try await dispatcherSessionOrFail(request)
        let detail = try await activeRide(try context.parameters.require("id"))
        return DispatchRenderer.page("cancel", cancelForm(ride: detail, token: token))
    }

    @Sendable func cancelFromPage(_ request: Request, context: Context) async throws -> Response {
        let (account, token, typed) = try await cancelForm(request)
        let detail = try await activeRide(try context.parameters.require("id"))
        guard case .success(let reason) = typed else {
            return DispatchRenderer.page("cancel", cancelForm(ride: detail, token: token, problem: typed.problem), status: .badRequest)
        }
        try RideAccess.require(RideRelation(account, to: detail.ride), .cancelRide, on: "ride \(detail.ride.id)")
        do {
            _ = try await store.transition(rideID: detail.ride.id, to: .cancelled, by: account.id, detail: reason, idempotency: nil)
        } catch StoreError.illegalTransition(let from, _) {
            throw APIError.conflict(from, "The ride for \(detail.passenger.name) is already \(from.rawValue); there is nothing to cancel.")
        }
        return DispatchRenderer.redirect(to: "/dispatch?cancelled=\(DispatchBoard.queryEscaped(detail.ride.id))")
    }

    @Sendable func cancelRequestConfirmation(_ request: Request, context: Context) async throws -> Response {
        let (_, token) = try await dispatcherSessionOrFail(request)
        let record = try await openRequest(try context.parameters.require("id"))
        return DispatchRenderer.page("cancel", cancelForm(request: record, token: token))
    }

    @Sendable func cancelRequestFromPage(_ request: Request, context: Context) async throws -> Response {
        let (account, token, typed) = try await cancelForm(request)
        let record = try await openRequest(try context.parameters.require("id"))
        guard case .success(let reason) = typed else {
            return DispatchRenderer.page("cancel", cancelForm(request: record, token: token, problem: typed.problem), status: .badRequest)
        }
        try RideAccess.require(RideRelation(account, toRequest: record), .cancelRequest, on: "ride request \(record.id)")
        do {
            _ = try await store.cancelRideRequest(id: record.id, by: account.id, reason: reason, idempotency: nil)
        } catch StoreError.illegalTransition(let from, _) {
            throw APIError.conflict(from, "The request of \(record.passengerName) was already taken or cancelled; reload the list.")
        }
        return DispatchRenderer.redirect(to: "/dispatch?request=\(DispatchBoard.queryEscaped(record.id))")
    }

    @Sendable func assignFromPage(_ request: Request, context: Context) async throws -> Response {
        let (account, token) = try await dispatcherSessionOrFail(request)
        let form = try await request.decodeForm(AssignForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        let record = try await openRequest(try context.parameters.require("id"))
        try RideAccess.require(RideRelation(account, toRequest: record), .assignRequest, on: "ride request \(record.id)")
        guard let driverID = form.driverId, let driver = try await store.account(id: driverID), driver.role == .driver else {
            throw APIError.invalidField("driverId", "choose one of the free drivers in the list")
        }
        let ride: RideRecord
        do {
            ride = try await store.accept(requestID: record.id, driverID: driver.id, rideKey: RandomBytes.make(32),
                                          rule: bookingRule, assignedBy: account.id, idempotency: nil)
        } catch StoreError.illegalTransition {
            throw APIError.conflict(.accepted, "The request of \(record.passengerName) was taken or cancelled meanwhile; reload the list.")
        } catch StoreError.busy {
            throw APIError(.conflict, code: .driverHasActiveRide, "\(driver.displayName) already has an active ride; choose another driver.")
        }
        return DispatchRenderer.redirect(to: "/dispatch?assigned=\(DispatchBoard.queryEscaped(ride.id))")
    }

    // MARK: Helpers

    func dispatcherSessionOrFail(_ request: Request) async throws -> (Account, APITokenSecret) {
        guard let session = try await dispatcherSession(request) else {
            throw APIError.unauthenticated("your session has ended; sign in again at /dispatch/login")
        }
        return session
    }

    /// The session, the form's CSRF check, and its reason through the edge's `FreeText` rule
    /// (it reaches the passenger's terminal, voice and desktop): blank, too long, or with control
    /// characters is a problem the form names.
    func cancelForm(_ request: Request) async throws -> (Account, APITokenSecret, Result<String, CancelReasonProblem>) {
        let (account, token) = try await dispatcherSessionOrFail(request)
        let form = try await request.decodeForm(CancelReasonForm.self)
        guard DispatchSession.csrfMatches(form.csrf, token: token) else { throw PageRefusal.staleForm }
        let typed = form.reason ?? ""
        guard !RideAccess.cancellationNeedsReason(by: account.role) || !typed.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return (account, token, .failure(CancelReasonProblem(message: Self.missingReason)))
        }
        do {
            return (account, token, .success(try FreeText.clean(typed, field: "reason", multiline: true)))
        } catch {
            let message = "The reason must be at most \(BodyLimits.maxTextLength) characters, without control characters"
            return (account, token, .failure(CancelReasonProblem(message: message)))
        }
    }

    static var missingReason: String { "Enter why you are cancelling; it is kept in the history" }

    func activeRide(_ idOrCode: String) async throws -> RideDetail {
        guard let detail = try await store.rideDetail(id: try await rides.rideID(from: idOrCode)) else { throw APIError.notFound("ride \(idOrCode)") }
        return detail
    }

    func openRequest(_ idOrCode: String) async throws -> RideRequestRecord {
        guard let record = try await store.rideRequest(id: try await rides.requestID(from: idOrCode)) else {
            throw APIError.notFound("ride request \(idOrCode)")
        }
        return record
    }

    func cancelForm(ride detail: RideDetail, token: APITokenSecret, problem: String? = nil) -> [String: Any] {
        let code = detail.ride.shortCode ?? "—"
        return cancelContext(what: "the ride for \(detail.passenger.name)", action: "/dispatch/rides/\(detail.ride.id)/cancel",
                             summary: "Ride \(code): \(detail.passenger.name) with \(detail.driver.name), \(detail.ride.state.rawValue), from \(detail.pickup ?? "—") to \(detail.dropoff ?? "—").",
                             token: token, problem: problem)
    }

    func cancelForm(request record: RideRequestRecord, token: APITokenSecret, problem: String? = nil) -> [String: Any] {
        cancelContext(what: "the request of \(record.passengerName)", action: "/dispatch/requests/\(record.id)/cancel",
                      summary: "Request \(record.shortCode ?? "—"): \(record.passengerName), waiting since \(record.createdAt.formatted(date: .omitted, time: .shortened)), from \(record.pickup) to \(record.dropoff).",
                      token: token, problem: problem)
    }

    private func cancelContext(what: String, action: String, summary: String, token: APITokenSecret, problem: String?) -> [String: Any] {
        ["what": what, "action": action, "summary": summary, "csrf": DispatchSession.csrfToken(for: token), "reason": "",
         "hasErrors": problem != nil, "reasonError": problem ?? Self.missingReason]
    }

    /// Drivers without a ride that occupies them: the ones a request can be given to.
    func freeDrivers() async throws -> [DriverInfo] {
        try await drivers.free()
    }
}

/// Why the cancel form's reason was refused; the form says it beside the field.
struct CancelReasonProblem: Error {
    var message: String
}

extension Result where Failure == CancelReasonProblem {
    /// The form's message when the reason was refused.
    var problem: String? {
        if case .failure(let problem) = self { return problem.message }
        return nil
    }
}

/// The form `assignFromPage` reads.
struct AssignForm: Decodable { var csrf: String?; var driverId: String? }

/// The form `cancelForm` reads.
struct CancelReasonForm: Decodable { var csrf: String?; var reason: String? }
