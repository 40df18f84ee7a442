module github.com/openhuman-go/openhuman-go/services/agents

go 1.26.0

require (
	github.com/nats-io/nats.go v1.55.0
	github.com/openhuman-go/openhuman-go/pkg v0.0.0
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/nats-io/nkeys v0.4.16 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace github.com/openhuman-go/openhuman-go/pkg => ../../pkg
