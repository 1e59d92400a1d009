package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
)

func (a *app) newBrowseCmd() *cobra.Command {
	limit := 0
	readOnly := false
	c := &cobra.Command{
		Use:   "browse [KEY]",
		Short: "Browse, sort and edit both halves of a relation in a terminal view",
		Long: `Browse a key's item collection side by side with who points at it, as
tables you can read, sort and edit in place.

Above the panes: the key's item, the entity whole as get shows it (with the
counts kept on its role items). The left pane is the base table's item
collection of KEY: its edges in the relations whose from side it is
(forward, one Query on PK = KEY). The right pane is the inverted index: the
edges of relations whose to side it is (reverse, one Query on GSI1PK = KEY,
one per shard of a sharded relation). Each pane pages with the same exact
cursors as the list commands; a page fills the pane (--limit sets it). Enter
follows the selected edge to the entity on the other side; backspace goes
back. / finds a key (a Query that starts at it), s and S sort, f filters
(the FilterExpression is shown as you type), L loads every row.

e edits the selected edge's attributes (or the item's, above the first row),
a adds an edge, x unlinks one, u undoes the view's last write. A write is
conditional on the values shown: if the item changed since, nothing is
written and the view says what changed. Links and unlinks move the counters
as the link verbs do. Below the panes: each request the view sent, reads and
writes, with its consumed capacity and latency. ? lists the keys.

Without KEY, browse asks for one. --read-only (or ADJL_READ_ONLY=true) refuses
every write key. It needs a terminal: with stdout piped or redirected it
exits 2 (use get and the list verbs in scripts). Works on every backend
(--endpoint).`,
		Example: withExamples("adjl browse STU#a91", "adjl browse CRS#math204 --limit 10", "adjl browse USER#taylor --read-only", "adjl --endpoint http://127.0.0.1:8000 browse"),
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
			ro, err := a.browseReadOnly(c, readOnly)
			if err != nil {
				return err
			}
			return a.browseRun(c, key, limit, ro)
		},
	}
	c.Flags().IntVar(&limit, "limit", 0, "rows per page in each pane (default: as many as the pane shows)")
	c.Flags().BoolVar(&readOnly, "read-only", false, "refuse every write key: e, a, x, u (also ADJL_READ_ONLY)")
	return c
}

// browseReadOnly is --read-only, or else ADJL_READ_ONLY (a bool as
// strconv reads one).
func (a *app) browseReadOnly(c *cobra.Command, flag bool) (bool, error) {
	if c.Flags().Changed("read-only") {
		return flag, nil
	}
	v := strings.TrimSpace(envValue(a.getenv, envReadOnly))
	if v == "" {
		return false, nil
	}
	ro, err := strconv.ParseBool(v)
	if err != nil {
		return false, usagef(c, "invalid %s=%q: want true or false", envReadOnly, v)
	}
	return ro, nil
}

// envReadOnly makes browse read-only, as --read-only does.
const envReadOnly = "ADJL_READ_ONLY"

// errNoTerminal is browse run with stdout piped or redirected.
var errNoTerminal = errors.New("adjl browse needs a terminal: stdout is not one (it is piped or redirected)")

func (a *app) browseRun(c *cobra.Command, key string, limit int, readOnly bool) error {
	if !a.io.OutTTY {
		return &usageError{err: errNoTerminal,
			hint: "run it in a terminal; in scripts use adjl get KEY and the list verbs (adjl courses KEY -o json)"}
	}
	if limit < 0 || limit > 1000 {
		return usagef(c, "invalid --limit %d: want 1 to 1000", limit)
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
	m.readOnly = readOnly
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
