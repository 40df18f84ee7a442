package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/audit"
	auditsqlite "github.com/openhuman-go/openhuman-go/pkg/audit/sqlite"
	"github.com/openhuman-go/openhuman-go/pkg/backup"
	"github.com/openhuman-go/openhuman-go/pkg/config"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

// homeFiles are what a backup of the home holds: memory, and the audit
// with the key its rows' ids are hashed with.
func homeFiles(cfg config.Config) []backup.File {
	files := []backup.File{{Name: "memory.db", Path: cfg.Memory.Path, Schema: memorymain.SchemaVersion()}}
	if cfg.Audit.Path != "" {
		files = append(files,
			backup.File{Name: "audit.db", Path: cfg.Audit.Path, Schema: auditsqlite.SchemaVersion(), Optional: true},
			backup.File{Name: audit.KeyFile, Path: filepath.Join(filepath.Dir(cfg.Audit.Path), audit.KeyFile), Optional: true})
	}
	return files
}

// runBackup copies the home's memory and audit into FILE; serve (or any
// openhuman-core) may go on using them meanwhile.
func (m *Main) runBackup(ctx context.Context, g globalFlags, args []string) int {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(err)
	}
	if fs.NArg() != 1 {
		return m.usageError(errors.New("backup takes one FILE to write"))
	}
	cfg, err := config.Load(g.home, m.Getenv)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	if fs.Arg(0) == "-" {
		// Unlike export's records, a backup is written whole and checked
		// before it gets its name: it cannot stream.
		fmt.Fprintln(m.Stderr, "openhuman-core: backup: - (standard output) is not a file: name one to write, such as openhuman.backup")
		return exitFailure
	}
	if err := notADirectory(fs.Arg(0), "openhuman.backup"); err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: backup:", err)
		return exitFailure
	}
	man, err := backup.Write(ctx, fs.Arg(0), homeFiles(cfg))
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: backup:", err)
		return exitFailure
	}
	fmt.Fprintf(m.Stdout, "backed up %s to %s (backup format v%d)\n", describe(man), fs.Arg(0), man.Version)
	return exitOK
}

// runRestore puts a backup into a home no openhuman-core runs on.
func (m *Main) runRestore(ctx context.Context, g globalFlags, args []string) int {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g.register(fs)
	force := fs.Bool("force", false, "replace the memory and audit the home holds")
	if err := parseAnywhere(fs, args); err != nil {
		return m.usageError(err)
	}
	if fs.NArg() != 1 {
		return m.usageError(errors.New("restore takes one FILE, a backup"))
	}
	cfg, err := config.Load(g.home, m.Getenv)
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core:", err)
		return exitFailure
	}
	if fs.Arg(0) == "-" {
		fmt.Fprintln(m.Stderr, "openhuman-core: restore: - (standard input) is not a file: name the backup file to restore")
		return exitFailure
	}
	man, err := backup.Restore(ctx, fs.Arg(0), homeFiles(cfg), backup.RestoreOptions{Replace: *force, MaxBytes: cfg.Memory.MaxRestoreBytes()})
	if errors.Is(err, backup.ErrTooLarge) {
		err = fmt.Errorf("%w: to restore it, raise memory.max_restore_mb (now %d MiB) in config.toml, or set OPENHUMAN_MEMORY_MAX_RESTORE_MB", err, cfg.Memory.MaxRestoreMB)
	}
	if err != nil {
		fmt.Fprintln(m.Stderr, "openhuman-core: restore:", err)
		return exitFailure
	}
	fmt.Fprintf(m.Stdout, "restored %s from %s (made %s) into %s\n", describe(man), fs.Arg(0), man.CreatedAt, cfg.Home)
	return exitOK
}

func describe(man *backup.Manifest) string {
	var parts []string
	for name, f := range man.Files {
		parts = append(parts, fmt.Sprintf("%s (%d bytes)", name, f.Bytes))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
