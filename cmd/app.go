package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/adjl/adjl/ops"
	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// app is one invocation of adjl: its streams, arguments, settings, schema
// and (lazily) its backend. Commands get what they need from it.
type app struct {
	io     *IOStreams
	args   []string
	getenv func(string) (string, bool)

	root    *cobra.Command
	v       *viper.Viper
	set     *settings
	started bool           // cobra parsed the command line and a command started
	cmd     *cobra.Command // the command that started

	schemaPath   string
	schemaSource string
	sch          *schema.Schema
	schErr       error

	be    *backend
	store *ops.Store
	// setMemoryLimit sets the process's soft memory limit (Main:
	// debug.SetMemoryLimit; nil in tests, which share their process).
	setMemoryLimit func(int64) int64
	// api, when set (tests), replaces the backend --endpoint names.
	api      ops.API
	expl     *explainer
	capacity *capacityPrinter // --capacity: per request, and the total at the end
	where    string           // the backend, for messages: "the embedded engine (data file ...)"
	// secrets are the credentials of this run, hidden from all it prints.
	secrets *secrets
	// requestSink, when set, receives the request log instead of stderr
	// (browse shows it in the view).
	requestSink io.Writer
}

func (a *app) execute(ctx context.Context) error {
	pre, words, err := prescan(a.args, a.getenv)
	if err != nil {
		return err
	}
	a.loadSchema(pre.Schema, pre.SchemaSource)
	a.root = a.newRootCmd()
	if a.sch != nil {
		a.addRelationCmds(a.root, a.sch)
	}
	a.root.SetArgs(a.args)
	a.root.SetIn(a.io.In)
	a.root.SetOut(a.io.Out)
	a.root.SetErr(a.io.ErrOut)
	tuneBuiltins(a.root)
	if err := a.checkCommandName(words); err != nil {
		return err
	}
	c, err := a.root.ExecuteContextC(ctx)
	var u *usageError
	if errors.As(err, &u) && u.cmd == nil && a.started {
		// The hint shows the usage of the command that refused.
		u.cmd = c
	}
	return err
}

// loadSchema reads the schema once at start-up, before cobra runs, because
// the relation verbs are commands. Failures are kept and reported by the
// commands that need a schema; the others (version, completion, local
// serve) still work.
func (a *app) loadSchema(path, source string) {
	if path == "" {
		path, source = defaultSchema, "default"
	}
	a.schemaPath, a.schemaSource = path, source
	a.sch, a.schErr = loadSchemaFile(path, source)
}

// loadSchemaFile loads a schema and classifies the failure: a missing file
// names where it was looked for, an unreadable one (a directory, no
// permission) is an input error, and invalid content keeps its
// file:line:col errors (exit 3).
func loadSchemaFile(path, source string) (*schema.Schema, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, &noSchemaError{path: path, source: source}
	}
	s, err := schema.Load(path)
	if err != nil && !schema.IsInvalid(err) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &usageError{err: fmt.Errorf("cannot read schema file %s: %w", path, err),
			hint: "pass --schema FILE naming a readable YAML file (adjl init writes a starter one)"}
	}
	return s, err
}

// schema returns the loaded schema or why there is none.
func (a *app) schema() (*schema.Schema, error) {
	if a.sch == nil {
		return nil, a.schErr
	}
	return a.sch, nil
}

// checkCommandName turns an unknown first word into a message that says why
// it is unknown: relation verbs exist only when a schema is loaded.
func (a *app) checkCommandName(words []string) error {
	if len(words) == 0 {
		return nil
	}
	name := words[0]
	if name == cobra.ShellCompRequestCmd || name == cobra.ShellCompNoDescRequestCmd {
		return nil
	}
	a.root.InitDefaultHelpCmd()
	a.root.InitDefaultCompletionCmd()
	for _, c := range a.root.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return nil
		}
	}
	if unknownFlag(a.args) {
		// The pre-scan took the word after an unknown flag for its value
		// (adjl --bogus get KEY); cobra names the flag instead.
		return nil
	}
	if schema.IsInvalid(a.schErr) {
		return a.schErr
	}
	if a.sch == nil {
		return &usageError{err: fmt.Errorf("unknown command %q: %v; pass --schema FILE", name, a.schErr),
			hint: "relation verbs (enroll, members, ...) come from the schema; 'adjl --help' lists the built-in commands"}
	}
	msg := fmt.Sprintf("unknown command %q for \"adjl\"", name)
	if sugg := suggestions(a.root, name); len(sugg) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(sugg, " or "))
	}
	return &usageError{cmd: a.root, err: errors.New(msg), hint: "'adjl --help' lists the commands"}
}

// settings resolves the global settings after cobra parsed the flags.
func (a *app) resolveSettings() error {
	v, cfg, err := newViper(a.root.PersistentFlags(), a.getenv)
	if err != nil {
		return err
	}
	s, err := resolve(v, cfg, a.root.PersistentFlags(), a.getenv)
	if err != nil {
		return err
	}
	a.v, a.set = v, s
	return nil
}

// storeFor returns the ops.Store over the configured backend, opening the
// backend on first use.
func (a *app) storeFor(ctx context.Context) (*ops.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	s, err := a.schema()
	if err != nil {
		return nil, err
	}
	return a.openStore(ctx, s)
}

// openStore opens the backend and returns the ops.Store for s over it; a
// command that has no schema yet (schema infer) hands one naming only the
// table.
func (a *app) openStore(ctx context.Context, s *schema.Schema) (*ops.Store, error) {
	opt := ops.Options{}
	if a.set.Explain {
		flags, note := a.awsCLIFlags(ctx)
		a.expl = &explainer{w: a.io.Out, awsFlags: flags, note: note}
		opt.Explain = a.expl.explain
	}
	if a.set.Capacity {
		a.capacity = &capacityPrinter{w: a.io.ErrOut}
		opt.Capacity = a.capacity.report
	}
	be, err := a.openBackend(ctx)
	if err != nil {
		return nil, err
	}
	a.be, a.where = be, be.where
	opt.StorageFailure = be.failure
	if a.set.Verbose {
		fmt.Fprintf(a.io.ErrOut, "backend: %s\n", be.describe)
	}
	a.store = ops.New(be.api, s, opt)
	return a.store, nil
}

// awsCLIFlags are the aws CLI options that send a request where adjl sends
// it: the server's URL (a URL endpoint, or the adjl local serve holding the
// data file, which a local command talks to) always with the region adjl
// uses for it, so the line runs in a shell with no AWS configuration; for
// AWS the region when one is set and the profile adjl's credentials come
// from. The embedded engine in process has no URL: the line names a
// placeholder address the aws CLI refuses, so pasted it reaches neither AWS
// nor whatever listens on local serve's default port, and note says to
// start the server and put its address there.
func (a *app) awsCLIFlags(ctx context.Context) (flags []string, note string) {
	endpoint, region, profile := "", a.set.Region, a.set.Profile
	switch {
	case isURL(a.set.Endpoint):
		endpoint = a.set.Endpoint
	case a.set.Endpoint == "local":
		profile = "" // does not apply
		rec, ok := runningServer(ctx, a.set.Data)
		endpoint, region = rec.URL, "" // reached as a URL with no region of its own (see openLocal)
		if !ok {
			// A placeholder, not local serve's default address: whatever
			// already listens there (another project's serve, DynamoDB
			// Local, whose default port is the same) would take the lines.
			endpoint = "http://" + serveAddrPlaceholder
			serve := "adjl local serve"
			if a.set.Data != "" {
				serve += " --data " + shellQuote(a.set.Data)
			}
			note = fmt.Sprintf("the aws CLI lines need a server: no adjl local serve holds the data file; run `%s` (it listens on %s unless --addr says) and put its address in place of %s before pasting them", serve, defaultServeAddr, serveAddrPlaceholder)
		}
	}
	if endpoint != "" && region == "" {
		region = a.urlRegion(ctx, profile)
	}
	if endpoint != "" {
		flags = append(flags, "--endpoint-url", shellQuote(endpoint))
	}
	if region != "" {
		flags = append(flags, "--region", shellQuote(region))
	}
	if profile != "" {
		flags = append(flags, "--profile", shellQuote(profile))
	}
	return flags, note
}

// urlRegion is the region openURL gives a server when none is set: the
// environment's, the profile's, else fallbackRegion.
func (a *app) urlRegion(ctx context.Context, profile string) string {
	for _, name := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if r := envValue(a.getenv, name); r != "" {
			return r
		}
	}
	if profile != "" {
		// The files the SDK reads (LoadDefaultConfig honours these too).
		files := func(o *config.LoadSharedConfigOptions) {
			if f := envValue(a.getenv, "AWS_CONFIG_FILE"); f != "" {
				o.ConfigFiles = []string{f}
			}
			if f := envValue(a.getenv, "AWS_SHARED_CREDENTIALS_FILE"); f != "" {
				o.CredentialsFiles = []string{f}
			}
		}
		if sc, err := config.LoadSharedConfigProfile(ctx, profile, files); err == nil && sc.Region != "" {
			return sc.Region
		}
	}
	return fallbackRegion
}

// close releases the backend (the embedded engine's file lock).
func (a *app) close() error {
	if a.be != nil && a.be.close != nil {
		err := a.be.close()
		data := a.be.data
		a.be = nil
		if err != nil && data != "" {
			return &closeDataFileError{path: data, err: err}
		}
		if err != nil {
			return fmt.Errorf("close backend: %w", err)
		}
	}
	return nil
}

// createsTablesAnnotation marks the commands that create tables, and so
// may create the embedded engine's data file.
const createsTablesAnnotation = "adjl/creates-tables"

// createsTables reports whether the running command creates tables.
func (a *app) createsTables() bool {
	return a.cmd != nil && a.cmd.Annotations[createsTablesAnnotation] != ""
}

// explaining reports whether requests are printed instead of sent.
func (a *app) explaining() bool { return a.set != nil && a.set.Explain }

// printer returns the printer chosen by -o.
func (a *app) printer() printer {
	return newPrinter(a.set.Output, a.io, ops.DefaultLimit)
}

// listPrinter is the printer of a list whose pages hold limit rows (0: the
// default page size): a terminal table is printed a page at a time.
func (a *app) listPrinter(limit int) printer {
	if limit <= 0 {
		limit = ops.DefaultLimit
	}
	return newPrinter(a.set.Output, a.io, limit)
}

// unknownFlag reports whether args hold a flag that is not global.
func unknownFlag(args []string) bool {
	fs := pflag.NewFlagSet("adjl", pflag.ContinueOnError)
	addGlobalFlags(fs)
	fs.BoolP("help", "h", false, "")
	for _, arg := range args {
		if arg == "--" {
			return false
		}
		name, ok := strings.CutPrefix(arg, "--")
		if ok {
			name, _, _ = strings.Cut(name, "=")
			if fs.Lookup(name) == nil {
				return true
			}
			continue
		}
		if len(arg) > 1 && arg[0] == '-' && fs.ShorthandLookup(arg[1:2]) == nil {
			return true
		}
	}
	return false
}
