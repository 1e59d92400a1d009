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

// check is one performance target from issues 3 and 4 with what was measured.
type check struct {
	Issue    int
	Name     string
	Measured string // "23.4x", "61,234 items/s", or "" when skipped
	Target   string // "≥ 10x"
	Verdict  verdict
	Note     string // skip reason or context
}

// atLeast builds a check passing when got ≥ want.
func atLeast(issue int, name string, got, want float64, unit string) check {
	c := check{Issue: issue, Name: name, Measured: fmtNum(got, unit), Target: "≥ " + fmtNum(want, unit), Verdict: fail}
	if got >= want {
		c.Verdict = pass
	}
	return c
}

// atMost builds a check passing when got ≤ want.
func atMost(issue int, name string, got, want float64, unit string) check {
	c := check{Issue: issue, Name: name, Measured: fmtNum(got, unit), Target: "≤ " + fmtNum(want, unit), Verdict: fail}
	if got <= want {
		c.Verdict = pass
	}
	return c
}

func skipped(issue int, name, target, reason string) check {
	return check{Issue: issue, Name: name, Target: target, Verdict: skip, Note: "skipped: " + reason}
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
	fmt.Fprintln(w, "\n== Targets (issue 3: embedded engine, issue 4: sharding)")
	counts := map[verdict]int{}
	for _, c := range r.Checks {
		counts[c.Verdict]++
		m := c.Measured
		if m == "" {
			m = "-"
		}
		fmt.Fprintf(tw, "  %s\t#%d %s\tmeasured %s\ttarget %s\t%s\n", c.Verdict, c.Issue, c.Name, m, c.Target, c.Note)
	}
	tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	fmt.Fprintf(w, "\nsummary: %d PASS, %d FAIL, %d SKIP\n", counts[pass], counts[fail], counts[skip])
}
