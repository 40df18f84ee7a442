package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Answers cite their sources with [n] markers, n counting from 1 into the
// citations returned with them (memory.recall, web_answer).

var extraSpaces = regexp.MustCompile(`[ \t]{2,}`)

var markerGroup = regexp.MustCompile(`\[(\s*\d+\s*(?:[,;]\s*\d+\s*)*)\]`)

// CheckCitations keeps the [n] markers of answer that point at one of n
// sources, splits grouped ones ([1, 3] becomes [1][3]) and removes the rest.
// It returns the cleaned answer and how many markers remain.
func CheckCitations(answer string, n int) (string, int) {
	valid := 0
	out := markerGroup.ReplaceAllStringFunc(answer, func(m string) string {
		var keep strings.Builder
		for _, part := range strings.FieldsFunc(m[1:len(m)-1], func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
			k, err := strconv.Atoi(part)
			if err == nil && k >= 1 && k <= n {
				fmt.Fprintf(&keep, "[%d]", k)
				valid++
			}
		}
		return keep.String()
	})
	out = extraSpaces.ReplaceAllString(out, " ")
	out = strings.ReplaceAll(out, " .", ".")
	return strings.TrimSpace(out), valid
}
