package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// Defaults of the global settings.
const (
	defaultSchema   = "./adjl.yaml"
	defaultEndpoint = "local"
	defaultData     = "./.adjl/data.db"
	defaultOutput   = "table"
	envPrefix       = "ADJL"
)

// outputFormats are the values -o accepts.
var outputFormats = []string{"table", "json", "ndjson", "csv", "yaml"}

// addGlobalFlags declares the global flags on fs. It is used twice: on the
// root command, and on a throw-away set that pre-scans the arguments for
// --schema and --config before cobra runs, because the relation verbs are
// generated from the schema and must exist before cobra parses.
func addGlobalFlags(fs *pflag.FlagSet) {
	fs.String("schema", defaultSchema, "schema `FILE` (env ADJL_SCHEMA)")
	fs.String("endpoint", defaultEndpoint, "backend: local (embedded engine), aws, or a URL of a DynamoDB-compatible server")
	fs.String("data", defaultData, "data `FILE` of the embedded engine (--endpoint local)")
	fs.String("region", "", "AWS region (--endpoint aws or URL)")
	fs.String("profile", "", "AWS shared config profile (--endpoint aws)")
	fs.StringP("output", "o", defaultOutput, "output format: "+strings.Join(outputFormats, "|"))
	fs.Bool("explain", false, "print the DynamoDB requests (and the equivalent aws CLI) without sending them")
	fs.Bool("capacity", false, "print consumed capacity per operation on stderr")
	fs.Bool("verbose", false, "say which backend is used")
	fs.Bool("debug", false, "log each request on stderr: operation, table, index, key condition, latency, capacity, retries")
	fs.BoolP("quiet", "q", false, "no hints, notes, progress or summaries on stderr (errors, warnings and data stay)")
	fs.Bool("no-color", false, "no colour, even on a terminal (also NO_COLOR)")
	fs.String("config", "", "config `FILE` (default ./.adjl/config.yaml, then $XDG_CONFIG_HOME/adjl/config.yaml)")
}

// settings are the resolved global settings of one run.
type settings struct {
	Schema       string
	SchemaSource string // flag, env, config or default: for messages
	Endpoint     string
	Data         string
	Region       string
	Profile      string
	Output       string
	Explain      bool
	Capacity     bool
	Verbose      bool
	Debug        bool
	Quiet        bool
	NoColor      bool
	ConfigFile   string // "" when none was read
	// origin says where each setting's value came from, by setting name:
	// "flag --output", "environment ADJL_OUTPUT", "config file F line N"
	// or "default"; messages about a bad value name it.
	origin map[string]string
}

// configSettings are the settings a config file may hold: where and how to
// reach the table, not what a single command does.
var configSettings = []string{"endpoint", "schema", "data", "region", "profile", "output"}

// configEntry is one setting read from a config file, with its line.
type configEntry struct {
	value string
	line  int
}

// maxConfigBytes bounds a config file: six settings fit in a few lines.
const maxConfigBytes = 64 << 10

// readConfigFile reads a config file: a YAML mapping of configSettings to
// single values. Anything else is reported as file:line: message.
func readConfigFile(path string) (map[string]configEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A limited read: the path may name something endless (/dev/zero, a FIFO).
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err // a *PathError already
	}
	bad := func(line int, format string, args ...any) error {
		return &usageError{err: fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...)),
			hint: "a config file holds only " + strings.Join(configSettings, ", ") + ", e.g. endpoint: http://127.0.0.1:8000"}
	}
	if len(data) > maxConfigBytes {
		return nil, bad(1, "the file is over %d bytes; a config file holds a few settings (is it the right file?)", maxConfigBytes)
	}
	invalid := func(err error) error {
		return &usageError{err: fmt.Errorf("%s: invalid YAML: %s", path, strings.TrimPrefix(err.Error(), "yaml: ")),
			hint: "fix or remove the file; it holds settings such as endpoint: local"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, invalid(err)
	}
	// Settings after a second "---" would be silently ignored: refused.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return nil, invalid(err)
	case len(next.Content) > 0 && !isNull(next.Content[0]):
		return nil, bad(next.Content[0].Line, "a config file holds one YAML document; merge the settings after --- into the first")
	}
	out := map[string]configEntry{}
	if len(doc.Content) == 0 {
		return out, nil // empty file: no settings
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, bad(root.Line, "want settings as name: value lines")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias // profile: *r is the value anchored as &r
		}
		switch {
		case !slices.Contains(configSettings, k.Value):
			return nil, bad(k.Line, "unknown setting %q", k.Value)
		case out[k.Value].line != 0:
			return nil, bad(k.Line, "%s is set twice (first at line %d)", k.Value, out[k.Value].line)
		case v.Kind != yaml.ScalarNode || isNull(v):
			return nil, bad(v.Line, "%s needs a single value", k.Value)
		}
		out[k.Value] = configEntry{value: v.Value, line: k.Line}
	}
	return out, nil
}

func isBool(s string) bool {
	_, err := strconv.ParseBool(s)
	return err == nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// newViper binds fs to a viper instance with the precedence
// flag > ADJL_* environment > config file > default, and returns the config
// file it read (nil for none).
func newViper(flags *pflag.FlagSet, getenv func(string) (string, bool)) (*viper.Viper, *configFileRead, error) {
	v := viper.New()
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if err := v.BindPFlags(flags); err != nil {
		return nil, nil, fmt.Errorf("bind flags: %w", err)
	}
	file, explicit, err := configFile(flags, getenv)
	if err != nil {
		return nil, nil, err
	}
	if file == "" {
		return v, nil, nil
	}
	entries, err := readConfigFile(file)
	switch {
	case err != nil && !explicit && errors.Is(err, fs.ErrNotExist):
		return v, nil, nil
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return nil, nil, &usageError{err: fmt.Errorf("config file %s not found", file),
			hint: "check --config (or ADJL_CONFIG)"}
	case err != nil:
		var u *usageError
		if errors.As(err, &u) {
			return nil, nil, err
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return nil, nil, &usageError{err: fmt.Errorf("cannot read config file %s: %w", file, err),
			hint: "check --config (or ADJL_CONFIG): it names a YAML file of settings"}
	}
	values := map[string]any{}
	for name, e := range entries {
		values[name] = e.value
	}
	if err := v.MergeConfigMap(values); err != nil {
		return nil, nil, fmt.Errorf("config file %s: %w", file, err)
	}
	return v, &configFileRead{path: file, entries: entries}, nil
}

// configFileRead is the config file a run read.
type configFileRead struct {
	path    string
	entries map[string]configEntry
}

// configFile finds the config file: --config, ADJL_CONFIG, ./.adjl/config.yaml,
// $XDG_CONFIG_HOME/adjl/config.yaml (~/.config when unset). explicit reports
// whether the user named it, in which case a missing file is an error.
func configFile(fs *pflag.FlagSet, getenv func(string) (string, bool)) (file string, explicit bool, err error) {
	if f := fs.Lookup("config"); f != nil && f.Changed {
		return f.Value.String(), true, nil
	}
	if p, ok := getenv(envPrefix + "_CONFIG"); ok && p != "" {
		return p, true, nil
	}
	for _, c := range configCandidates(getenv) {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, false, nil
		}
	}
	return "", false, nil
}

// configCandidates are the config files looked for, in order, when neither
// --config nor ADJL_CONFIG names one: the first that exists is read.
func configCandidates(getenv func(string) (string, bool)) []string {
	candidates := []string{filepath.Join(".adjl", "config.yaml")}
	if x, ok := getenv("XDG_CONFIG_HOME"); ok && x != "" {
		candidates = append(candidates, filepath.Join(x, "adjl", "config.yaml"))
	} else if home, ok := getenv("HOME"); ok && home != "" {
		candidates = append(candidates, filepath.Join(home, ".config", "adjl", "config.yaml"))
	}
	return candidates
}

// resolve reads the settings out of v; cfg is the config file newViper read.
func resolve(v *viper.Viper, cfg *configFileRead, fs *pflag.FlagSet, getenv func(string) (string, bool)) (*settings, error) {
	s := &settings{
		Schema:   v.GetString("schema"),
		Endpoint: v.GetString("endpoint"),
		Data:     v.GetString("data"),
		Region:   v.GetString("region"),
		Profile:  v.GetString("profile"),
		Output:   strings.ToLower(v.GetString("output")),
		Explain:  v.GetBool("explain"),
		Capacity: v.GetBool("capacity"),
		Verbose:  v.GetBool("verbose"),
		Debug:    v.GetBool("debug"),
		Quiet:    v.GetBool("quiet"),
		NoColor:  v.GetBool("no-color"),
		origin:   map[string]string{},
	}
	if cfg != nil {
		s.ConfigFile = cfg.path
	}
	fs.VisitAll(func(f *pflag.Flag) {
		s.origin[f.Name] = origin(cfg, fs, getenv, f.Name)
	})
	s.SchemaSource = source(cfg, fs, getenv, "schema")
	// viper reads a variable strconv.ParseBool refuses ("yes") as false:
	// ADJL_EXPLAIN=yes would send what it was meant only to print, and
	// ADJL_DEBUG=yes would quietly not debug. Every boolean flag's variable
	// is checked, so a new one cannot be missed (--help and --version are
	// not settings).
	var badBool error
	fs.VisitAll(func(f *pflag.Flag) {
		if badBool != nil || f.Value.Type() != "bool" || f.Name == "help" || f.Name == "version" ||
			source(cfg, fs, getenv, f.Name) != "env" {
			return
		}
		if val, _ := getenv(envName(f.Name)); !isBool(val) {
			badBool = &usageError{err: fmt.Errorf("invalid %s value %q (%s): want true or false (or 1 or 0)", f.Name, val, s.origin[f.Name]),
				hint: fmt.Sprintf("set %[1]s=true or %[1]s=false, or unset %[1]s", envName(f.Name))}
		}
	})
	if badBool != nil {
		return nil, badBool
	}
	if !slices.Contains(outputFormats, s.Output) {
		return nil, &usageError{err: fmt.Errorf("invalid output format %q (%s): want one of %s", s.Output, s.origin["output"], strings.Join(outputFormats, ", "))}
	}
	if s.Endpoint == "" {
		s.Endpoint = defaultEndpoint
	}
	return s, nil
}

// source says which layer a setting came from ("flag", "env", "config" or
// "default"), for messages such as "no schema loaded (looked for
// ./adjl.yaml)".
func source(cfg *configFileRead, fs *pflag.FlagSet, getenv func(string) (string, bool), key string) string {
	if f := fs.Lookup(key); f != nil && f.Changed {
		return "flag"
	}
	if v, ok := getenv(envName(key)); ok && v != "" { // viper treats an empty variable as unset
		return "env"
	}
	if cfg != nil {
		if _, ok := cfg.entries[key]; ok {
			return "config"
		}
	}
	return "default"
}

// origin says precisely where a setting came from: the flag, the
// environment variable, the config file and line, or the default.
func origin(cfg *configFileRead, fs *pflag.FlagSet, getenv func(string) (string, bool), key string) string {
	switch source(cfg, fs, getenv, key) {
	case "flag":
		return "flag --" + key
	case "env":
		return "environment " + envName(key)
	case "config":
		return fmt.Sprintf("config file %s line %d", cfg.path, cfg.entries[key].line)
	}
	return "default"
}

// envName is the environment variable of a setting: ADJL_OUTPUT.
func envName(key string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// prescan parses the global flags out of args, ignoring everything else, and
// resolves the settings needed before the command tree exists. It also
// returns the positional words (the first is the command name).
func prescan(args []string, getenv func(string) (string, bool)) (*settings, []string, error) {
	fs := pflag.NewFlagSet("adjl", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	addGlobalFlags(fs)
	fs.BoolP("help", "h", false, "")
	if err := fs.Parse(args); err != nil {
		// cobra reports flag errors with the command's usage; here a bad
		// value only means we cannot know the schema path yet.
		fs = pflag.NewFlagSet("adjl", pflag.ContinueOnError)
		addGlobalFlags(fs)
	}
	v, cfg, err := newViper(fs, getenv)
	if err != nil {
		return nil, fs.Args(), err
	}
	s, err := resolve(v, cfg, fs, getenv)
	if err != nil {
		// Reported properly once cobra has parsed; keep the schema path.
		s = &settings{Schema: v.GetString("schema"), SchemaSource: source(cfg, fs, getenv, "schema")}
	}
	return s, fs.Args(), nil
}
