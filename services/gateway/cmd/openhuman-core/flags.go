package main

import (
	"errors"
	"flag"
	"strings"
)

// parseAnywhere parses fs's flags wherever they stand among args, before,
// between or after its words ("ingest notes --home /x" stores into /x, not
// into the default home with "--home" taken for a path), and leaves the
// words as fs.Args(); after "--" every argument is a word.
func parseAnywhere(fs *flag.FlagSet, args []string) error {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); len(rest) == 0 || n > 0 && args[n-1] == "--" {
			words = append(words, rest...)
			break
		}
		words, args = append(words, rest[0]), rest[1:]
	}
	return fs.Parse(append([]string{"--"}, words...))
}

// setHome is --home. An empty one is an unset shell variable ("--home
// $DIR"), not a wish for the default home: memory would go elsewhere than
// meant without a word.
func (g *globalFlags) setHome(dir string) error {
	if strings.TrimSpace(dir) == "" {
		return errors.New("names no directory: give a path, or leave --home out for $OPENHUMAN_HOME or ~/.openhuman")
	}
	g.home = dir
	return nil
}
