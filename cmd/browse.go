package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
)

// browseDefaultLimit is the page size of each pane: a page fits a 24-line
// terminal with the entity, request and help lines.
const browseDefaultLimit = 10

func (a *app) newBrowseCmd() *cobra.Command {
	limit := 0
	c := &cobra.Command{
		Use:   "browse [KEY]",
		Short: "Browse both halves of a relation in a terminal view (read-only)",
		Long: `Browse a key's item collection side by side with who points at it.

The left pane is the base table's item collection of KEY: its edges in the
relations whose from side it is (forward, one Query on PK = KEY; the first one
also brings the item itself as --with-entity does, in its Query or with one
GetItem, shown above the panes with its counters). The
right pane is the inverted index: the edges of relations whose to side it is
(reverse, one Query on GSI1PK = KEY, one per shard of a sharded relation).
Each pane pages with the same exact cursors as the list commands. Enter
follows the selected edge to the entity on the other side; backspace goes
back. Below the panes: the selected edge's attributes, then each request the
view sent with its consumed capacity and latency. ? lists the keys.

Without KEY, browse asks for one. Nothing is written. It needs a terminal:
with stdout piped or redirected it exits 2 (use get and the list verbs in
scripts). Works on every backend (--endpoint).`,
		Example: withExamples("adjl browse STU#a91", "adjl browse CRS#math204 --limit 5", "adjl --endpoint http://127.0.0.1:8000 browse"),
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef(c, "unexpected argument %q (want at most one KEY)", args[1])
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			key := ""
			if len(args) == 1 {
				key = args[0]
			}
			return a.browseRun(c, key, limit)
		},
	}
	c.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf("rows per page in each pane (default %d)", browseDefaultLimit))
	return c
}

// errNoTerminal is browse run with stdout piped or redirected.
var errNoTerminal = errors.New("adjl browse needs a terminal: stdout is not one (it is piped or redirected)")

func (a *app) browseRun(c *cobra.Command, key string, limit int) error {
	if !a.io.OutTTY {
		return &usageError{err: errNoTerminal,
			hint: "run it in a terminal; in scripts use adjl get KEY and the list verbs (adjl courses KEY -o json)"}
	}
	if limit < 0 || limit > 1000 {
		return usagef(c, "invalid --limit %d: want 1 to 1000", limit)
	}
	if limit == 0 {
		limit = browseDefaultLimit
	}
	s, err := a.schema()
	if err != nil {
		return err
	}
	if a.explaining() {
		return &usageError{err: errors.New("--explain cannot be combined with browse: the view sends its requests as you move")}
	}
	if key != "" {
		if _, _, err := s.ResolveKey(key); err != nil {
			return err
		}
	}
	rec := &requestRecorder{}
	a.requestSink = rec
	st, err := a.storeFor(c.Context())
	if err != nil {
		return err
	}
	m := newBrowseModel(c.Context(), st, s, rec, limit, key, a.where)
	if a.secrets != nil {
		m.hide = func(text string) string { return a.secrets.redact(text, credentialShapes, errorShapes) }
	}
	opts := []tea.ProgramOption{tea.WithContext(c.Context()), tea.WithInput(a.io.In), tea.WithOutput(unredacted(a.io.Out))}
	if !a.io.Color {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	final, err := tea.NewProgram(m, opts...).Run()
	if errors.Is(err, tea.ErrInterrupted) || errors.Is(err, tea.ErrProgramKilled) {
		return context.Canceled // a signal: exit 130, "adjl: interrupted"
	}
	if err != nil {
		return fmt.Errorf("browse: %w", err)
	}
	if fm, ok := final.(*browseModel); ok && fm.fatal != nil {
		return fm.fatal
	}
	return nil
}

// requestRecorder collects the request log lines of one view load, for the
// request panel: the same lines --debug prints.
type requestRecorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (r *requestRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

// take returns the lines recorded since the last take, without "debug: ".
func (r *requestRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, line := range strings.Split(strings.TrimRight(r.buf.String(), "\n"), "\n") {
		if line != "" {
			out = append(out, strings.TrimPrefix(line, "debug: "))
		}
	}
	r.buf.Reset()
	return out
}

var _ io.Writer = (*requestRecorder)(nil)
