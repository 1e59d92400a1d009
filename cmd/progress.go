package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressEvery is how often a plain progress line is printed when stderr
// is not a terminal (a CI log): often enough to show life, rarely enough
// to keep the log short.
const progressEvery = 5 * time.Second

// progress shows how far a bulk command has come on stderr: a bar with
// count, rate and ETA on a terminal (schollz/progressbar), a plain line every
// progressEvery otherwise, nothing with --quiet. Each phase (writing rows,
// recounting counters, scanning) has its own total and unit.
type progress struct {
	w     io.Writer
	tty   bool
	quiet bool

	mu         sync.Mutex
	bar        *progressbar.ProgressBar
	label      string
	unit       string
	total      int64 // -1: unknown
	start      time.Time
	lastLine   time.Time
	now        func() time.Time
	lastReport int64
}

func (a *app) newProgress(quiet bool) *progress {
	return &progress{w: a.io.ErrOut, tty: isTerminal(a.io.ErrOut), quiet: quiet || a.explaining(), now: time.Now}
}

// phase starts a phase: label ("import enrollment"), its unit ("rows") and
// its total (-1 when unknown).
func (p *progress) phase(label, unit string, total int64) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
	p.label, p.unit, p.total = label, unit, total
	p.start, p.lastLine, p.lastReport = p.now(), p.now(), 0
	if p.tty {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(),
		)
	}
}

// set reports that n units of the phase are done.
func (p *progress) set(n int64) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastReport = n
	if p.bar != nil {
		p.bar.Set64(n)
		return
	}
	if now := p.now(); now.Sub(p.lastLine) >= progressEvery {
		p.lastLine = now
		fmt.Fprintln(p.w, p.line(n, now))
	}
}

// line is the plain progress line: "import enrollment: 120,000/1,000,000
// rows (12%), 61,204 rows/s, eta 14s".
func (p *progress) line(n int64, now time.Time) string {
	el := now.Sub(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(n) / el
	}
	s := fmt.Sprintf("%s: %s", p.label, commas(n))
	if p.total >= 0 {
		s += fmt.Sprintf("/%s %s", commas(p.total), p.unit)
		if p.total > 0 {
			s += fmt.Sprintf(" (%d%%)", n*100/p.total)
		}
	} else {
		s += " " + p.unit
	}
	s += fmt.Sprintf(", %s %s/s", commas(int64(rate)), p.unit)
	if p.total > 0 && rate > 0 && n < p.total {
		s += fmt.Sprintf(", eta %s", (time.Duration(float64(p.total-n)/rate) * time.Second).Round(time.Second))
	}
	return s
}

// finish ends the current phase's display.
func (p *progress) finish() {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishLocked()
}

func (p *progress) finishLocked() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}

// commas formats n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
