// Package auditmain chooses the audit trail's backend from configuration
// for the binaries that keep one: openhuman-core (its own writes) and the
// agents service (sub-agents' writes), in one process or several. It is
// start-up wiring, kept out of package audit so that the domain imports no
// backend, and shared so that both binaries make the same choice.
package auditmain

import (
	"crypto/rand"
	"log/slog"
	"path/filepath"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	"github.com/openhuman-go/openhuman-go/pkg/audit/redis"
	"github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
)

// Open returns the recorder cfg asks for: rows in the Redis stream when
// Redis is configured (the SQLite file taking what Redis cannot), else in
// the SQLite file; nil when auditing is off.
func Open(cfg config.Config, log *slog.Logger) (*audit.Recorder, error) {
	if !cfg.Audit.On() {
		return nil, nil
	}
	key, err := loadKey(cfg.Audit.Path)
	if err != nil {
		return nil, err
	}
	file, err := sqlite.Open(cfg.Audit.Path, cfg.Audit.MaxRows)
	if err != nil {
		return nil, err
	}
	var l audit.Log = file
	if cfg.Redis.URL != "" {
		client, err := redisconn.New(cfg.Redis.URL, cfg.Redis.Prefix, log)
		if err != nil {
			file.Close()
			return nil, err
		}
		l = &ownedStream{Stream: redis.NewStream(client, cfg.Audit.MaxRows, file), client: client}
	}
	return audit.NewRecorder(l, log, key), nil
}

// loadKey reads the key beside the audit file, in Redis mode too: it is
// this process's, and never travels to the shared stream. Without a path
// SQLite keeps the file in a temporary place for the process's lifetime,
// and the key lives as long, in memory.
func loadKey(auditPath string) ([]byte, error) {
	if auditPath == "" {
		key := make([]byte, 32)
		_, err := rand.Read(key)
		return key, err
	}
	return audit.LoadKey(filepath.Join(filepath.Dir(auditPath), audit.KeyFile))
}

// ownedStream closes the Redis client it was opened with: the stream
// shares no client with anything else, so nothing else would.
type ownedStream struct {
	*redis.Stream
	client *redisconn.Client
}

func (s *ownedStream) Close() error {
	err := s.Stream.Close()
	if cerr := s.client.Close(); err == nil {
		err = cerr
	}
	return err
}
