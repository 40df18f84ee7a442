package config

import (
	"fmt"
	"strconv"
	"time"
)

// Seconds and Minutes are durations. Their keys and variables keep the
// names they had as whole numbers (timeout_seconds = 30,
// OPENHUMAN_TOOL_TIMEOUT_SECONDS=30), which still mean what they meant: a
// count of the unit the name says. A string is a Go duration, "90s",
// "1m30s" or "2h", whatever the name's unit.
type (
	Seconds time.Duration
	Minutes time.Duration
)

// D is the duration itself.
func (s Seconds) D() time.Duration { return time.Duration(s) }

// D is the duration itself.
func (m Minutes) D() time.Duration { return time.Duration(m) }

func (s Seconds) String() string { return time.Duration(s).String() }
func (m Minutes) String() string { return time.Duration(m).String() }

// UnmarshalTOML takes a whole number of seconds or a duration string.
func (s *Seconds) UnmarshalTOML(v any) error {
	d, err := tomlDuration(v, time.Second, "seconds")
	*s = Seconds(d)
	return err
}

// UnmarshalTOML takes a whole number of minutes or a duration string.
func (m *Minutes) UnmarshalTOML(v any) error {
	d, err := tomlDuration(v, time.Minute, "minutes")
	*m = Minutes(d)
	return err
}

func tomlDuration(v any, unit time.Duration, units string) (time.Duration, error) {
	switch x := v.(type) {
	case int64:
		return time.Duration(x) * unit, nil
	case string:
		d, hint := parseDuration(x, unit, units)
		if hint != "" {
			return 0, fmt.Errorf("%q: %s", x, hint)
		}
		return d, nil
	}
	return 0, fmt.Errorf("%v: %s", v, durationHint(units))
}

// parseDuration reads s as a whole number of unit, or as a Go duration; it
// returns what to write instead when s is neither.
func parseDuration(s string, unit time.Duration, units string) (time.Duration, string) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Duration(n) * unit, ""
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, durationHint(units)
	}
	return d, ""
}

func durationHint(units string) string {
	return "use a whole number of " + units + ", or a duration such as \"30s\", \"5m\" or \"1h30m\""
}
