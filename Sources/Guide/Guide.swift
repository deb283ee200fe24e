// Passenger guidance and driver advertising as state machines over a Radio, the ride client and
// an AudioSink. See DESIGN.md and issue 5.
