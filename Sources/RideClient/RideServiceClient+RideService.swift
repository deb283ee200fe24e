import Foundation
import RideSession
import RideWire

// The HTTP adapter: `RideServiceClient` as RideSession's `RideService`, so the driver's
// session and the passenger's guide reach the ride service over the /v1 API. It lives here,
// with the HTTP client, so RideSession (and Guide, the simulator and the benchmarks above it)
// never link AsyncHTTPClient.

extension RideServiceClient: RideService {
    public func submitProof(_ observation: TouchObservation, rideID: String) async -> ProofAnswer {
        do {
            switch try await submitTouchProof(TouchProof(observation), rideID: rideID) {
            case .accepted(let result): return ProofAnswer(result.outcome)
            case .notVerified(let message):
                return .rejected("the ride service cannot verify touch proofs yet (\(message)); the operator can confirm the ride")
            }
        } catch {
            if case .rejected(let problem) = error { return .rejected(problem.message) }
            return .rejected(error.description)
        }
    }

    public func requestLocator(rideID: String) async -> LocatorAnswer {
        do {
            let answer = try await requestLocator(rideID)
            return .ticking(seconds: Double(answer.soundSeconds))
        } catch {
            if case .rejected(let problem) = error {
                if problem.code == .rateLimited { return .tooSoon(retryAfter: problem.retryAfter.map(Double.init) ?? LocatorRule.minimumInterval) }
                return .refused(problem.message)
            }
            return .refused(error.description)
        }
    }

    public func answerLocator(rideID: String, sound: LocatorSoundName) async -> String? {
        do { _ = try await answerLocator(rideID, sound: sound) } catch { return Self.reason(error) }
        return nil
    }

    public func meetingMove(rideID: String, _ move: MeetingMove) async -> String? {
        do { _ = try await meetingMove(rideID, move) } catch { return Self.reason(error) }
        return nil
    }

    public func askToCome(rideID: String) async -> ComeRequestAnswer {
        do { _ = try await askToCome(rideID) } catch {
            if case .rejected(let problem) = error, problem.code == .rateLimited {
                return .tooSoon(retryAfter: problem.retryAfter.map(Double.init) ?? 1)
            }
            return .refused(Self.reason(error))
        }
        return .asked
    }

    public func answerCome(rideID: String, _ answer: ComeAnswer) async -> String? {
        do { _ = try await answerCome(rideID, answer) } catch { return Self.reason(error) }
        return nil
    }

    public func reportGuide(rideID: String, _ report: GuideReport) async -> String? {
        do { _ = try await reportGuide(rideID, report) } catch { return Self.reason(error) }
        return nil
    }

    public func confirmByRideWord(rideID: String, word: String) async -> ProofAnswer {
        do {
            let ride = try await confirmByRideWord(rideID, word: word)
            return ride.state == .confirmed ? .confirmed : .rejected("the ride is \(ride.state.rawValue)")
        } catch {
            return .rejected(Self.reason(error))
        }
    }

    private static func reason(_ error: RideClientError) -> String {
        if case .rejected(let problem) = error { return problem.message }
        return error.description
    }

    public func rideUpdates(_ rideID: String) -> AsyncStream<RideUpdate> {
        let events = rideEvents(rideID)
        return AsyncStream { continuation in
            let task = Task {
                do {
                    for try await update in events {
                        switch update {
                        case .connected: continuation.yield(.reachable(true))
                        case .interrupted: continuation.yield(.reachable(false))
                        case .event(let event) where event.kind == .locatorRequested:
                            continuation.yield(.locatorRequested(unixTime: event.at.timeIntervalSince1970))
                        case .event(let event) where event.kind == .locatorAnswered:
                            if let sound = event.locatorAnswer {
                                continuation.yield(.locatorAnswered(sound, unixTime: event.at.timeIntervalSince1970))
                            }
                        case .event(let event) where event.kind == .driverComing || event.kind == .carAcross:
                            continuation.yield(.meeting(event.kind == .driverComing ? .coming : .across, unixTime: event.at.timeIntervalSince1970))
                        case .event(let event) where event.kind == .comeRequested:
                            continuation.yield(.comeRequested(unixTime: event.at.timeIntervalSince1970))
                        case .event(let event) where event.kind == .comeReceived || event.kind == .comeAnswered:
                            if let answer = event.comeAnswer {
                                continuation.yield(.comeAnswered(answer, unixTime: event.at.timeIntervalSince1970))
                            }
                        case .event(let event) where event.kind == .touchObserved:
                            if let touch = event.touchObserved {
                                continuation.yield(.touchObserved(by: touch.side == .passenger ? .passenger : .driver,
                                                                  from: touch.from.timeIntervalSince1970, until: touch.until.timeIntervalSince1970))
                            }
                        case .event(let event) where !event.kind.isStateChange:
                            break
                        case .event(let event):
                            switch event.state {
                            case .arrived: continuation.yield(.arrived)
                            case .confirmed: continuation.yield(.confirmed)
                            case .completed: continuation.yield(.completed)
                            case .cancelled: continuation.yield(.cancelled)
                            case .requested, .accepted: break
                            }
                        }
                    }
                } catch let error as RideClientError {
                    continuation.yield(.failed(error.description))
                } catch {
                    continuation.yield(.failed(String(describing: error)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
