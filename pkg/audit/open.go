package audit

import (
	"log/slog"

	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/pkg/redisconn"
)

// Open returns the recorder cfg asks for: rows in the Redis stream when
// Redis is configured (the SQLite file taking what Redis cannot), else in
// the SQLite file; nil when auditing is off.
func Open(cfg config.Config, log *slog.Logger) (*Recorder, error) {
	if !cfg.Audit.On() {
		return nil, nil
	}
	file, err := OpenSQLite(cfg.Audit.Path, cfg.Audit.MaxRows)
	if err != nil {
		return nil, err
	}
	var l Log = file
	if cfg.Redis.URL != "" {
		client, err := redisconn.New(cfg.Redis.URL, cfg.Redis.Prefix, log)
		if err != nil {
			file.Close()
			return nil, err
		}
		l = &ownedStream{Stream: NewStream(client, cfg.Audit.MaxRows, file), client: client}
	}
	return NewRecorder(l, log), nil
}

// ownedStream closes the Redis client it was opened with.
type ownedStream struct {
	*Stream
	client *redisconn.Client
}

func (s *ownedStream) Close() error {
	err := s.Stream.Close()
	if cerr := s.client.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close closes the recorder's log.
func (rec *Recorder) Close() error { return rec.log.Close() }
