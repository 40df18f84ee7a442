package answer

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A transcript pasted into memory carries when each line was said in a
// stamp before it: "(1:56 pm on 8 May, 2023) Caroline said", "[2023-05-08
// 13:56] Bo:". That, not when the note was stored, is the day its
// "yesterday" counts from.

// stamp is a stamp's bracketed part, in brackets or parentheses.
const stamp = `[(\[]([^()\[\]\n]{1,60})[)\]]`

// stampAt matches a stamp at the start of a text.
var stampAt = regexp.MustCompile(`^\s*` + stamp)

// isoAt matches a text that starts with an ISO date: "2023-05-08 Bo: …".
var isoAt = regexp.MustCompile(`^\s*(\d{4})-(\d{2})-(\d{2})\b`)

const monthNames = `january|february|march|april|may|june|july|august|september|october|november|december|` +
	`jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec`

// stampDate finds a day in a stamp: ISO, "8 May, 2023" or "May 8th, 2023".
var stampDate = regexp.MustCompile(`(?i)\b(\d{4})-(\d{2})-(\d{2})\b|` +
	`\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?(` + monthNames + `)\.?,? (\d{4})\b|` +
	`\b(` + monthNames + `)\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`)

// stampOf is the day a text's leading stamp names. found reports a
// stamp that names a year; at is zero when no day can be read from it
// ("(spring 2023)"), and such a text's relative dates are left alone.
func stampOf(text string) (at time.Time, found bool) {
	if m := isoAt.FindStringSubmatch(text); m != nil {
		return day(m[1], m[2], m[3]), true
	}
	m := stampAt.FindStringSubmatch(text)
	if m == nil || !year.MatchString(m[1]) {
		return time.Time{}, false
	}
	d := stampDate.FindStringSubmatch(m[1])
	switch {
	case d == nil:
		return time.Time{}, true
	case d[1] != "":
		return day(d[1], d[2], d[3]), true
	case d[4] != "":
		return day(d[6], month(d[5]), d[4]), true
	default:
		return day(d[9], month(d[7]), d[8]), true
	}
}

// Dated is snippet, a sentence of text, with its relative dates followed
// by the dates they meant when text was said: counted from the day text's
// stamp names, whatever year the snippet holds, or else from stored
// (ResolveDates).
func Dated(snippet, text string, stored time.Time) string {
	if at, found := stampOf(text); found {
		return resolve(snippet, at)
	}
	return ResolveDates(snippet, stored)
}

func month(name string) string {
	name = strings.ToLower(name)
	for i, m := range strings.Split(monthNames, "|")[:12] {
		if strings.HasPrefix(m, name[:3]) {
			return strconv.Itoa(i + 1)
		}
	}
	return ""
}

// day is the date of y, m and d, or zero when they name none (31 April).
func day(y, m, d string) time.Time {
	yy, _ := strconv.Atoi(y)
	mm, _ := strconv.Atoi(m)
	dd, _ := strconv.Atoi(d)
	t := time.Date(yy, time.Month(mm), dd, 12, 0, 0, 0, time.UTC)
	if mm < 1 || mm > 12 || t.Day() != dd {
		return time.Time{}
	}
	return t
}
