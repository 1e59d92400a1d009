package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// verdict of one performance target.
type verdict string

const (
	pass verdict = "PASS"
	fail verdict = "FAIL"
	skip verdict = "SKIP"
)

// area is what a performance target is about.
type area string

const (
	areaEngine   area = "engine"   // the embedded engine (local/)
	areaSharding area = "sharding" // sharded relations through the CLI
	areaBulk     area = "bulk"     // import, export and counters through the CLI
	areaStartup  area = "startup"  // the CLI's process start-up
)

// check is one performance target with what was measured.
type check struct {
	Area     area
	Name     string
	Measured string // "23.4x", "61,234 items/s", or "" when skipped
	Target   string // "≥ 10x"
	Verdict  verdict
	Note     string // skip reason or context
}

// atLeast builds a check passing when got ≥ want.
func atLeast(a area, name string, got, want float64, unit string) check {
	c := check{Area: a, Name: name, Measured: fmtNum(got, unit), Target: "≥ " + fmtNum(want, unit), Verdict: fail}
	if got >= want {
		c.Verdict = pass
	}
	return c
}

// atMost builds a check passing when got ≤ want.
func atMost(a area, name string, got, want float64, unit string) check {
	c := check{Area: a, Name: name, Measured: fmtNum(got, unit), Target: "≤ " + fmtNum(want, unit), Verdict: fail}
	if got <= want {
		c.Verdict = pass
	}
	return c
}

func skipped(a area, name, target, reason string) check {
	return check{Area: a, Name: name, Target: target, Verdict: skip, Note: "skipped: " + reason}
}

// fmtNum prints ratios with two decimals and rates with thousands separators.
func fmtNum(v float64, unit string) string {
	switch unit {
	case "x":
		return fmt.Sprintf("%.2fx", v)
	case "MB":
		return fmt.Sprintf("%.1f MB", v)
	case "":
		return thousands(v)
	default:
		return thousands(v) + " " + unit
	}
}

// thousands formats v rounded to an integer with comma separators.
func thousands(v float64) string {
	n := int64(math.Round(v))
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// figure is one line of the raw-figures table.
type figure struct {
	Section, Name, Value, Detail string
}

// report collects everything the run printed.
type report struct {
	Header  []string
	Figures []figure
	Checks  []check
	Notes   []string
}

// write prints the report: header, figures, then one PASS/FAIL/SKIP line per target.
func (r *report) write(w io.Writer) {
	for _, h := range r.Header {
		fmt.Fprintln(w, h)
	}
	section := ""
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, f := range r.Figures {
		if f.Section != section {
			section = f.Section
			tw.Flush()
			fmt.Fprintf(w, "\n== %s\n", section)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Name, f.Value, f.Detail)
	}
	tw.Flush()
	fmt.Fprintln(w, "\n== Targets (engine: the embedded engine, sharding: sharded relations through the CLI, startup: whole adjl processes)")
	counts := map[verdict]int{}
	for _, c := range r.Checks {
		counts[c.Verdict]++
		m := c.Measured
		if m == "" {
			m = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s: %s\tmeasured %s\ttarget %s\t%s\n", c.Verdict, c.Area, c.Name, m, c.Target, c.Note)
	}
	tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	fmt.Fprintf(w, "\nsummary: %d PASS, %d FAIL, %d SKIP\n", counts[pass], counts[fail], counts[skip])
}
