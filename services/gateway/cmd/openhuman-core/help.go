package main

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/editdistance"
)

// commandHelp is what `openhuman-core CMD --help` prints: CMD's lines of
// the usage and the flags every command takes, not all sixty lines.
func commandHelp(cmd string) string {
	lines := strings.Split(usage, "\n")
	var own []string
	for i := 0; i < len(lines); i++ {
		if !isCommandLine(lines[i], cmd) {
			continue
		}
		own = append(own, lines[i])
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], strings.Repeat(" ", 20)) {
			i++
			own = append(own, lines[i])
		}
	}
	if len(own) == 0 {
		return usage
	}
	flags := usage[strings.Index(usage, "Flags ("):strings.Index(usage, "Environment (")]
	return "Usage:\n" + strings.Join(own, "\n") + "\n\n" + flags +
		"Every command, the environment and the ports: openhuman-core --help\n"
}

// isCommandLine reports whether line begins cmd's entry in the usage.
func isCommandLine(line, cmd string) bool {
	rest, ok := strings.CutPrefix(line, "  openhuman-core ")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "[flags] ")
	return rest == cmd || strings.HasPrefix(rest, cmd+" ")
}

// undefinedFlag is how the flag package names a flag it does not know.
var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(\S+)$`)

// usageFlags are the flags the usage names.
var usageFlags = regexp.MustCompile(`--[a-z][a-z-]*`)

// flagHint says which flag was meant by an unknown one, "" when none is
// near: the usage's flags within two edits, and --port, which people
// reach for first, is --addr.
func flagHint(err error) string {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	if m[1] == "port" || m[1] == "p" || m[1] == "listen" {
		return "serve takes its address as --addr HOST:PORT, such as --addr 127.0.0.1:9413"
	}
	var known []string
	for _, f := range usageFlags.FindAllString(usage, -1) {
		if f = strings.TrimPrefix(f, "--"); !slices.Contains(known, f) {
			known = append(known, f)
		}
	}
	if near := editdistance.Nearest(m[1], known, 1); len(near) == 1 && editdistance.Within(m[1], near[0], 2) {
		return "did you mean --" + near[0] + "?"
	}
	return ""
}

// checkAddr refuses an --addr that is not HOST:PORT, before anything
// reads it as something else (a port alone is no address to listen on).
func checkAddr(addr string) error {
	if addr == "" {
		return nil
	}
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		hint := ""
		if !strings.Contains(addr, ":") {
			hint = fmt.Sprintf(" (127.0.0.1:%s listens on this machine only, 0.0.0.0:%s on every address)", addr, addr)
		}
		return fmt.Errorf("--addr %q: give HOST:PORT%s", addr, hint)
	}
	return nil
}

// checkCall checks call's words: a tool, and at most one JSON object of
// arguments after it.
func checkCall(words []string) error {
	switch {
	case len(words) < 1:
		return errors.New("call needs a tool name and, optionally, its arguments as a JSON object")
	case len(words) > 2:
		return fmt.Errorf("call takes a tool name and at most one JSON object of arguments, got %d words: quote the arguments as one ('{\"limit\": 5}')", len(words))
	case len(words) == 2:
		return checkCallOrder(words[0], words[1])
	}
	return nil
}

// checkCallOrder refuses `call '{…}' TOOL`: arguments first and the tool
// second would otherwise be read as a tool named like a JSON object.
func checkCallOrder(tool, args string) error {
	if strings.HasPrefix(strings.TrimSpace(tool), "{") && args != "" && !strings.HasPrefix(strings.TrimSpace(args), "{") {
		return errors.New("the tool comes first, then its arguments: openhuman-core call " + args + " '" + tool + "'")
	}
	return nil
}
