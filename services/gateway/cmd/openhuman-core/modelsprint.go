package main

import (
	"fmt"
	"io"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
	"github.com/openhuman-go/openhuman-go/services/memory/memorymain"
)

// printModels writes one block per model: its role, repository and
// commit, its folder, each file with its size, and whether it is whole
// (and, verified, passes its self-check).
func (m *Main) printModels(sts []memorymain.ModelStatus, verified bool) {
	for i, s := range sts {
		if i > 0 {
			fmt.Fprintln(m.Stdout)
		}
		if !s.Fetched {
			fmt.Fprintf(m.Stdout, "%s  %s  not fetched (openhuman-core models pull)\n", s.Role, s.Model.Repo.Name)
			continue
		}
		state := "files match their checksums"
		if verified {
			state = "verified: checksums and self-check pass"
		}
		if s.Err != nil {
			state = "FAILED: " + modelProblem(s)
		}
		fmt.Fprintf(m.Stdout, "%s  %s@%s  %s\n  %s\n", s.Role, s.Model.Repo.Name, s.Commit, state, s.Dir)
		for _, f := range s.Files {
			mark := ""
			if f.Err != nil {
				mark = "  changed or missing"
			}
			fmt.Fprintf(m.Stdout, "  %-20s %10s%s\n", f.Path, humanBytes(f.Size), mark)
		}
	}
}

func modelProblem(s memorymain.ModelStatus) string {
	if !s.Fetched {
		return "not fetched (openhuman-core models pull)"
	}
	return contract.ErrorMessage(s.Err)
}

// humanBytes is n in the unit that reads best.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// pullProgress writes a line per file as its transfer starts, at each
// tenth of it, and when it ends: enough to see a pull move, few enough for
// a build log.
type pullProgress struct {
	w    io.Writer
	file string
	step int64
}

func (p *pullProgress) report(pr memorymain.ModelProgress) {
	name := pr.Repo + "/" + pr.File
	step := pr.Done / (10 << 20) // every 10 MiB when the size is unknown
	if pr.Total > 0 {
		step = pr.Done * 10 / pr.Total
	}
	if name == p.file && step == p.step {
		return
	}
	p.file, p.step = name, step
	if pr.Total > 0 {
		fmt.Fprintf(p.w, "  %s: %d of %d bytes (%d%%)\n", name, pr.Done, pr.Total, pr.Done*100/max(pr.Total, 1))
		return
	}
	fmt.Fprintf(p.w, "  %s: %d bytes\n", name, pr.Done)
}
