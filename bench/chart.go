package bench

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// series is one line of a chart: points with their 95% intervals.
type series struct {
	name   string
	x, y   []float64
	lo, hi []float64
}

// seriesOf collects a metric's medians and intervals against the
// parameter x, one series per value of the parameter by (every case in
// one series when by is "").
func seriesOf(r *Report, workload, metric, x, by string, keep func(Params) bool) []series {
	return seriesBy(r, workload, metric, x, []string{by}, keep)
}

// seriesBy is seriesOf with one series per combination of the params in
// by (empty names are skipped).
func seriesBy(r *Report, workload, metric, x string, by []string, keep func(Params) bool) []series {
	var out []series
	index := map[string]int{}
	for _, res := range r.Results {
		if res.Workload != workload || res.Metric != metric || (keep != nil && !keep(res.Params)) {
			continue
		}
		var parts []string
		for _, b := range by {
			if b != "" && res.Params.Str(b) != "" {
				parts = append(parts, b+"="+res.Params.Str(b))
			}
		}
		name := strings.Join(parts, ", ")
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, series{name: name})
		}
		s := &out[i]
		s.x = append(s.x, float64(res.Params.Int(x)))
		s.y = append(s.y, res.Median)
		s.lo = append(s.lo, res.CILow)
		s.hi = append(s.hi, res.CIHigh)
	}
	return out
}

// w4Series are the params a W4 series is drawn for.
var w4Series = []string{"checkpointer", "from"}

// Chart is a chart WriteCharts draws: its file name and what it shows.
type Chart struct {
	// File is the chart's file name in the directory; Title its title.
	File, Title string
}

// WriteCharts draws the report's charts as SVG files into dir, for the
// workloads it measured: W1 calls/s against N, W2 effective parallelism
// against N, W3 µs per cycle per checkpointer and W4 per-step time and
// bytes against thread length. It returns the charts written.
func WriteCharts(r *Report, dir string) ([]Chart, error) {
	var out []Chart
	draw := func(file, title, xLabel, yLabel string, logY bool, ss []series) error {
		if len(ss) == 0 {
			return nil
		}
		// the lines rise to the right, so the legend goes in the bottom
		// right corner; W4's flat series run along the bottom, so there it
		// goes top left, above the short threads
		topLeft := strings.HasPrefix(file, "w4_")
		if err := lineChart(filepath.Join(dir, file), title, xLabel, yLabel, logY, topLeft, ss); err != nil {
			return fmt.Errorf("chart %s: %w", file, err)
		}
		out = append(out, Chart{File: file, Title: title})
		return nil
	}
	if err := draw("w1_calls_per_s.svg", "W1: ToolNode throughput, trivial tool", "tool calls per AI message (N)", "calls/s (median, 95% CI)", false,
		seriesOf(r, "W1", "calls_per_s", "n", "", nil)); err != nil {
		return out, err
	}
	unbounded := func(p Params) bool { return p.Str("cap") == "none" && p.Str("l_ms") == "10" }
	if err := draw("w2_parallelism.svg", "W2: effective parallelism N·L/wall, L = 10 ms", "tool calls per AI message (N)", "parallelism (×)", true,
		seriesOf(r, "W2", "parallelism", "n", "dist", unbounded)); err != nil {
		return out, err
	}
	if err := draw("w4_step_time.svg", "W4: time per superstep vs thread length", "messages in the thread", "µs per superstep (median, 95% CI)", true,
		seriesBy(r, "W4", "us_per_step", "messages", w4Series, nil)); err != nil {
		return out, err
	}
	if err := draw("w4_step_bytes.svg", "W4: bytes per superstep vs thread length", "messages in the thread", "bytes per superstep", true,
		append(renameSeries(seriesBy(r, "W4", "alloc_bytes_per_step", "messages", w4Series, nil), "allocated, "),
			renameSeries(seriesBy(r, "W4", "stored_bytes_per_step", "messages", w4Series, nil), "stored, ")...)); err != nil {
		return out, err
	}
	if err := draw("w3_cycle_time.svg", "W3: agent loop, µs per cycle", "cycles per run (K)", "µs per cycle (median, 95% CI)", false,
		seriesOf(r, "W3", "us_per_cycle", "k", "checkpointer", nil)); err != nil {
		return out, err
	}
	return out, nil
}

func renameSeries(ss []series, prefix string) []series {
	for i := range ss {
		ss[i].name = prefix + ss[i].name
	}
	return ss
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	color.RGBA{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff},
	color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

// lineChart draws series on a log x axis (and a log y axis when logY)
// with error bars for their intervals, and saves it; the format follows
// the file's extension (.svg, .png, .pdf). The legend goes in the top left
// corner with topLeft, in the bottom right one otherwise.
func lineChart(path, title, xLabel, yLabel string, logY, topLeft bool, ss []series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = topLeft, topLeft
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(8)
	if topLeft {
		p.Legend.XOffs, p.Legend.YOffs = vg.Points(8), -vg.Points(8)
	}
	for i, s := range ss {
		var pts plotter.XYs
		var errs plotter.YErrors
		for j := range s.x {
			if !(s.x[j] > 0) || !(s.y[j] > 0) || math.IsInf(s.y[j], 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: s.x[j], Y: s.y[j]})
			lo, hi := s.y[j]-s.lo[j], s.hi[j]-s.y[j]
			if logY && s.lo[j] <= 0 {
				lo = 0
			}
			errs = append(errs, struct{ Low, High float64 }{math.Max(lo, 0), math.Max(hi, 0)})
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := palette[i%len(palette)]
		line.Color = c
		line.Width = vg.Points(1.5)
		points.Color = c
		points.Shape = nil
		p.Add(line)
		bars := &plotter.YErrorBars{XYs: pts, YErrors: errs, LineStyle: line.LineStyle, CapWidth: vg.Points(4)}
		bars.Color = c
		bars.Width = vg.Points(1)
		p.Add(bars)
		if s.name != "" {
			p.Legend.Add(s.name, line)
		}
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}
