package telemetry

// Version is the release of every binary built from this tree. It is a
// semantic version because NATS micro insists on one. A release build sets
// it with -ldflags "-X github.com/openhuman-go/openhuman-go/pkg/telemetry.Version=1.2.3"
// (deploy/Dockerfile does, from its VERSION build argument).
var Version = "0.1.0"
