package console

import (
	"fmt"
	"html/template"
	"strings"
)

// chart draws the last hour, a bar a minute, as inline SVG: calls, and
// the part of them that failed in the error colour. It is an image to
// assistive technology, named by what it shows. Only numbers and the
// escaped label go into it, and it needs no script and no inline style
// (the stylesheet colours its classes).
func chart(label string, calls, errors []float64) template.HTML {
	const w, h, bar = 120.0, 24.0, 2.0
	peak := 0.0
	total := 0.0
	for _, v := range calls {
		peak = max(peak, v)
		total += v
	}
	var b strings.Builder
	name := fmt.Sprintf("%s: %.0f calls in the last %d minutes, at most %.0f a minute", label, total, len(calls), peak)
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s"><title>%s</title>`,
		w, h, w, h, template.HTMLEscapeString(name), template.HTMLEscapeString(name))
	fmt.Fprintf(&b, `<line class="axis" x1="0" y1="%.1f" x2="%.0f" y2="%.1f"></line>`, h-0.5, w, h-0.5)
	if peak > 0 {
		x0 := w - bar*float64(len(calls))
		for i, v := range calls {
			if v <= 0 {
				continue
			}
			x := x0 + bar*float64(i)
			bh := max(1, (h-1)*v/peak)
			fmt.Fprintf(&b, `<rect class="calls" x="%.1f" y="%.1f" width="%.1f" height="%.1f"></rect>`, x, h-1-bh, bar-0.4, bh)
			if i < len(errors) && errors[i] > 0 {
				eh := max(1, (h-1)*errors[i]/peak)
				fmt.Fprintf(&b, `<rect class="errors" x="%.1f" y="%.1f" width="%.1f" height="%.1f"></rect>`, x, h-1-eh, bar-0.4, eh)
			}
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // built from numbers and escaped text only
}
