package answer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// relative matches the time expressions that mean a date only from when
// they were said: "yesterday", "last week", "two days ago".
var relative = regexp.MustCompile(`(?i)\b(?:today|tonight|yesterday|tomorrow|this (?:morning|afternoon|evening)|last (?:night|week|weekend|month|year)|next (?:week|month|year)|(?:a|an|one|two|three|four|five|six|seven|\d+) (?:days?|weeks?|months?|years?) ago)\b`)

var year = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)

var counts = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

// ResolveDates follows each relative time expression of s with the date
// it meant when s was said, at: "yesterday" in a note of 8 May 2023 is
// "yesterday (7 May 2023)". An answer read later must not leave the
// reader to count from today. A text that says its own date ("(1:56 pm
// on 8 May, 2023) Caroline said") is left as it is: at may be when it was
// stored, not said.
func ResolveDates(s string, at time.Time) string {
	if at.IsZero() || year.MatchString(s) {
		return s
	}
	return relative.ReplaceAllStringFunc(s, func(expr string) string {
		if d := dateOf(strings.ToLower(expr), at); d != "" {
			return expr + " (" + d + ")"
		}
		return expr
	})
}

func dateOf(expr string, at time.Time) string {
	day := func(t time.Time) string { return t.Format("2 January 2006") }
	switch expr {
	case "today", "tonight", "this morning", "this afternoon", "this evening":
		return day(at)
	case "yesterday", "last night":
		return day(at.AddDate(0, 0, -1))
	case "tomorrow":
		return day(at.AddDate(0, 0, 1))
	case "last week", "last weekend":
		return "the week of " + day(monday(at).AddDate(0, 0, -7))
	case "next week":
		return "the week of " + day(monday(at).AddDate(0, 0, 7))
	case "last month":
		return firstOfMonth(at).AddDate(0, -1, 0).Format("January 2006")
	case "next month":
		return firstOfMonth(at).AddDate(0, 1, 0).Format("January 2006")
	case "last year":
		return strconv.Itoa(at.Year() - 1)
	case "next year":
		return strconv.Itoa(at.Year() + 1)
	}
	f := strings.Fields(expr) // "<n> <unit> ago"
	if len(f) != 3 {
		return ""
	}
	n, ok := counts[f[0]]
	if !ok {
		var err error
		if n, err = strconv.Atoi(f[0]); err != nil || n > 1000 {
			return ""
		}
	}
	switch strings.TrimSuffix(f[1], "s") {
	case "day":
		return day(at.AddDate(0, 0, -n))
	case "week":
		return "the week of " + day(monday(at).AddDate(0, 0, -7*n))
	case "month":
		return firstOfMonth(at).AddDate(0, -n, 0).Format("January 2006")
	case "year":
		return fmt.Sprint(at.Year() - n)
	}
	return ""
}

func monday(t time.Time) time.Time {
	return t.AddDate(0, 0, -(int(t.Weekday())+6)%7)
}

func firstOfMonth(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location())
}
