package soak

import (
	"os"
	"path/filepath"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// writePlot draws the resident memory samples over the run above each
// operation's p99 per minute, as one PNG.
func writePlot(path string, rss *rssSampler, rec *recorder, run time.Duration) error {
	mem := plot.New()
	mem.Title.Text = "Resident memory during the soak"
	mem.X.Label.Text = "s"
	mem.Y.Label.Text = "MiB"
	mem.Y.Min = 0
	for i, s := range rssSeries {
		xys := make(plotter.XYs, len(rss.points))
		for j, p := range rss.points {
			xys[j].X, xys[j].Y = p.at.Seconds(), p.mib[s]
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		mem.Add(l)
		mem.Legend.Add(s, l)
	}
	// Room above the lines for the legend.
	peak := 0.0
	for _, p := range rss.points {
		for _, s := range rssSeries {
			peak = max(peak, p.mib[s])
		}
	}
	mem.Y.Max = 1.5 * peak
	mem.Legend.Top, mem.Legend.Left = true, true

	lat := plot.New()
	lat.Title.Text = "p99 latency per minute"
	lat.X.Label.Text = "minute"
	lat.Y.Label.Text = "ms"
	lat.Y.Scale = plot.LogScale{}
	lat.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	minutes := int((run + time.Minute - 1) / time.Minute)
	for i, op := range ops {
		var xys plotter.XYs
		for m, mm := range rec.perMinute(op, minutes) {
			if mm.n > 0 {
				xys = append(xys, plotter.XY{X: float64(m + 1), Y: max(ms(mm.p99), 0.1)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		lat.Add(l, pts)
		lat.Legend.Add(op, l, pts)
	}
	lat.Y.Max *= 20 // room above the lines for the legend (a log scale)
	lat.Legend.Top, lat.Legend.Left = true, true

	img := vgimg.New(10*vg.Inch, 10*vg.Inch)
	dc := draw.New(img)
	plots := [][]*plot.Plot{{mem}, {lat}}
	canvases := plot.Align(plots, draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter}, dc)
	mem.Draw(canvases[0][0])
	lat.Draw(canvases[1][0])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
