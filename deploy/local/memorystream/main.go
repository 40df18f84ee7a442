// Command memorystream reads memory's replication stream and snapshots the
// way a replica can, for the container tests (deploy/stack_test.go): it
// reports how many messages the stream OPENHUMAN_MEMORY holds and which of
// them, and which snapshots in the object store openhuman_memory_snapshots,
// contain a given text. It runs in a throwaway container on the compose
// stack's network, connecting as the memory user (the only user allowed to
// read the stream), with OPENHUMAN_NATS_URL, OPENHUMAN_NATS_USER and
// OPENHUMAN_NATS_PASSWORD as the memory replicas have them:
//
//	memorystream -grep TEXT
//
// prints one JSON object: {"leader":"nats-2","messages":N,"last_seq":S,"matches":[seqs],
// "snapshots":N,"snapshot_matches":[names]}.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "memorystream:", err)
		os.Exit(1)
	}
}

type report struct {
	Leader          string   `json:"leader"` // the NATS server leading the stream
	Messages        uint64   `json:"messages"`
	LastSeq         uint64   `json:"last_seq"`
	Matches         []uint64 `json:"matches"`
	Snapshots       int      `json:"snapshots"`
	SnapshotMatches []string `json:"snapshot_matches"`
}

func run() error {
	grep := flag.String("grep", "", "the text to look for in every message and snapshot (required)")
	flag.Parse()
	if *grep == "" {
		return errors.New("-grep: give the text to look for")
	}
	url := os.Getenv("OPENHUMAN_NATS_URL")
	if url == "" {
		return errors.New("OPENHUMAN_NATS_URL is not set: give the NATS servers, as the memory replicas have them")
	}
	// Replies to the memory user come on _INBOX_memory.> only (auth.conf).
	nc, err := nats.Connect(url, nats.UserInfo(os.Getenv("OPENHUMAN_NATS_USER"), os.Getenv("OPENHUMAN_NATS_PASSWORD")),
		nats.CustomInboxPrefix("_INBOX_memory"), nats.Name("memorystream"))
	if err != nil {
		return err
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	stream, err := js.Stream(ctx, "OPENHUMAN_MEMORY")
	if err != nil {
		return fmt.Errorf("stream OPENHUMAN_MEMORY: %w", err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return err
	}
	needle := []byte(*grep)
	r := report{Messages: info.State.Msgs, LastSeq: info.State.LastSeq, Matches: []uint64{}, SnapshotMatches: []string{}}
	if info.Cluster != nil {
		r.Leader = info.Cluster.Leader
	}
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		msg, err := stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue // purged or deleted
		}
		if err != nil {
			return fmt.Errorf("message %d: %w", seq, err)
		}
		if bytes.Contains(msg.Data, needle) || bytes.Contains([]byte(msg.Subject), needle) {
			r.Matches = append(r.Matches, seq)
		}
	}
	obs, err := js.ObjectStore(ctx, "openhuman_memory_snapshots")
	if err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("object store openhuman_memory_snapshots: %w", err)
	}
	if obs != nil {
		list, err := obs.List(ctx)
		if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
			return fmt.Errorf("listing snapshots: %w", err)
		}
		for _, o := range list {
			res, err := obs.Get(ctx, o.Name)
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", o.Name, err)
			}
			b, err := io.ReadAll(res)
			res.Close()
			if err != nil {
				return fmt.Errorf("snapshot %s: %w", o.Name, err)
			}
			r.Snapshots++
			if bytes.Contains(b, needle) {
				r.SnapshotMatches = append(r.SnapshotMatches, o.Name)
			}
		}
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}
