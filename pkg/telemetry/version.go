package telemetry

// Version is the release of every binary built from this tree. It is a
// semantic version because NATS micro insists on one.
const Version = "0.1.0"
