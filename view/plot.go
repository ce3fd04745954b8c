package view

import (
	"fmt"
	"html/template"
	"strings"
)

// series is one line of a trend plot: a run's pass rate, or a variant's.
type series struct {
	Name   string
	Points []point
}

// point is an estimate at entry X (0 the oldest) with its 95% interval,
// linking to the entry.
type point struct {
	X         int
	Y, Lo, Hi float64
	Href      string
	Label     string
}

// palette colours the series, in order.
var palette = []string{"#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#57606a"}

// plot draws series as an inline SVG: the pass rate from 0 to 100% up,
// the entries left to right in time order, each point with its interval
// as a vertical bar and a link to its entry. Every text is escaped.
func plot(ss []series, entries int) template.HTML {
	if entries == 0 || len(ss) == 0 {
		return ""
	}
	const h, top, left, right, bottom = 180.0, 10.0, 44.0, 16.0, 24.0
	step := 48.0
	if entries > 40 {
		step = max(6, 1600/float64(entries))
	}
	w := left + right + step*float64(entries)
	y := func(v float64) float64 { return top + (1-v)*(h-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="trend" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="pass rate over time">`, w, h, w, h)
	for _, v := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f"/><text class="axis" x="%.0f" y="%.1f">%.0f%%</text>`,
			left, w-right, y(v), y(v), left-6, y(v)+4, 100*v)
	}
	for k, s := range ss {
		colour := palette[k%len(palette)]
		// the series' points are offset a little so that variants at one
		// entry do not hide each other
		off := (float64(k) - float64(len(ss)-1)/2) * min(6, step/float64(len(ss)+1))
		x := func(i int) float64 { return left + step*(float64(i)+0.5) + off }
		fmt.Fprintf(&b, `<g class="series" data-series="%s" stroke="%s" fill="%s">`, template.HTMLEscapeString(s.Name), colour, colour)
		if len(s.Points) > 1 {
			var pts []string
			for _, p := range s.Points {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.X), y(p.Y)))
			}
			fmt.Fprintf(&b, `<polyline class="line" fill="none" points="%s"/>`, strings.Join(pts, " "))
		}
		for _, p := range s.Points {
			fmt.Fprintf(&b, `<a class="point" href="%s"><title>%s</title><line class="ci" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/><circle cx="%.1f" cy="%.1f" r="3.5"/></a>`,
				template.HTMLEscapeString(p.Href), template.HTMLEscapeString(p.Label), x(p.X), x(p.X), y(p.Hi), y(p.Lo), x(p.X), y(p.Y))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	if len(ss) > 1 || ss[0].Name != "pass rate" {
		b.WriteString(`<p class="legend">`)
		for k, s := range ss {
			fmt.Fprintf(&b, `<span style="color:%s">●</span> %s `, palette[k%len(palette)], template.HTMLEscapeString(s.Name))
		}
		b.WriteString(`</p>`)
	}
	return template.HTML(b.String())
}
