package answer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// relative matches the time expressions that mean a date only from when
// they were said: "yesterday", "last week", "two days ago", "last Friday",
// "a few weeks ago".
var relative = regexp.MustCompile(`(?i)\b(?:today|tonight|yesterday|tomorrow|the other day|this (?:morning|afternoon|evening|week|month|year)|` +
	`(?:last|this past|next) (?:night|week|weekend|month|year|` + weekdayNames + `)|` +
	`(?:a|an|one|two|three|four|five|six|seven|\d+|a few|a couple of|few|several) (?:days?|weeks?|months?|years?) ago)\b`)

// weekdayNames are the day names relative alternates over, long forms
// first so that "Friday" is not read as "Fri".
const weekdayNames = `monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thu|fri|sat|sun`

var weekdays = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "tues": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "thurs": time.Thursday, "fri": time.Friday, "sat": time.Saturday}

var year = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)

var counts = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

// ResolveDates follows each relative time expression of s with the date
// it meant when s was said, at: "yesterday" in a note of 8 May 2023 is
// "yesterday (7 May 2023)". An answer read later must not leave the
// reader to count from today. A text that says its own date ("(1:56 pm
// on 8 May, 2023) Caroline said") is left as it is: at may be when it was
// stored, not said.
func ResolveDates(s string, at time.Time) string {
	if year.MatchString(s) {
		return s
	}
	return resolve(s, at)
}

// resolve is ResolveDates for a text whose day at is known to be when it
// was said.
func resolve(s string, at time.Time) string {
	if at.IsZero() {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range relative.FindAllStringIndex(s, -1) {
		expr := s[m[0]:m[1]]
		if strings.HasPrefix(strings.ToLower(s[m[1]:]), " of ") {
			// "the last week of every month", "the last Friday of the
			// month": a place in every period, not a date.
			continue
		}
		if d := dateOf(strings.ToLower(expr), at); d != "" {
			b.WriteString(s[last:m[1]])
			b.WriteString(" (" + d + ")")
			last = m[1]
		}
	}
	if last == 0 {
		return s
	}
	return b.String() + s[last:]
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
	case "this week":
		return "the week of " + day(monday(at))
	case "this month":
		return at.Format("January 2006")
	case "this year":
		return strconv.Itoa(at.Year())
	case "the other day":
		return "shortly before " + day(at)
	}
	if rest, ok := strings.CutPrefix(expr, "this past "); ok {
		return dateOf("last "+rest, at)
	}
	f := strings.Fields(expr)
	if len(f) >= 2 {
		if wd, ok := weekdays[f[len(f)-1]]; ok {
			// "last Friday" is the latest Friday before the day it was
			// said; "next Friday" the first after it.
			if f[0] == "next" {
				return day(at.AddDate(0, 0, 1+(int(wd)-int(at.Weekday())+6)%7))
			}
			return day(at.AddDate(0, 0, -1-(int(at.Weekday())-int(wd)+6)%7))
		}
	}
	if len(f) >= 3 && (f[0] == "few" || f[0] == "several" || f[1] == "few" || f[1] == "couple") {
		// "a few weeks ago": no date, but from which day it counts back.
		return strings.Join(f[:len(f)-1], " ") + " before " + day(at)
	}
	// "<n> <unit> ago"
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
