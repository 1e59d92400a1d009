package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
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
	fs.Int("limit", 0, "page size of list commands (default 25)")
	fs.String("cursor", "", "continue a list from the cursor a previous page printed")
	fs.Bool("all", false, "list every page")
	fs.Bool("consistent", false, "strongly consistent reads (base table only)")
	fs.Bool("explain", false, "print the DynamoDB requests (and the equivalent aws CLI) without sending them")
	fs.Bool("capacity", false, "print consumed capacity per operation on stderr")
	fs.Bool("verbose", false, "say which backend is used")
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
	Limit        int
	Cursor       string
	All          bool
	Consistent   bool
	Explain      bool
	Capacity     bool
	Verbose      bool
	ConfigFile   string // "" when none was read
}

// newViper binds fs to a viper instance with the precedence
// flag > ADJL_* environment > config file > default.
func newViper(flags *pflag.FlagSet, getenv func(string) (string, bool)) (*viper.Viper, error) {
	v := viper.New()
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if err := v.BindPFlags(flags); err != nil {
		return nil, fmt.Errorf("bind flags: %w", err)
	}
	file, explicit, err := configFile(flags, getenv)
	if err != nil {
		return nil, err
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			if !explicit && errors.Is(err, fs.ErrNotExist) {
				return v, nil
			}
			return nil, &usageError{err: fmt.Errorf("read config file %s: %w", file, err),
				hint: "fix or remove the file; it holds settings such as endpoint: local (see adjl --help)"}
		}
		if err := checkConfigKeys(v, flags, file); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// checkConfigKeys refuses a setting the config file names that adjl does not
// have, as the schema refuses unknown fields: a misspelt "endpont: aws" must
// not silently fall back to the embedded engine.
func checkConfigKeys(v *viper.Viper, flags *pflag.FlagSet, file string) error {
	var known []string
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Name != "config" && f.Name != "help" {
			known = append(known, f.Name)
		}
	})
	for _, k := range v.AllKeys() {
		if !v.InConfig(k) {
			continue
		}
		name, _, _ := strings.Cut(k, ".")
		if f := flags.Lookup(name); f == nil || name == "config" || name == "help" {
			return &usageError{err: fmt.Errorf("config file %s: unknown setting %q", file, name),
				hint: "known settings: " + strings.Join(known, ", ")}
		}
	}
	return nil
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
	candidates := []string{filepath.Join(".adjl", "config.yaml")}
	if x, ok := getenv("XDG_CONFIG_HOME"); ok && x != "" {
		candidates = append(candidates, filepath.Join(x, "adjl", "config.yaml"))
	} else if home, ok := getenv("HOME"); ok && home != "" {
		candidates = append(candidates, filepath.Join(home, ".config", "adjl", "config.yaml"))
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, false, nil
		}
	}
	return "", false, nil
}

// resolve reads the settings out of v.
func resolve(v *viper.Viper, fs *pflag.FlagSet, getenv func(string) (string, bool)) (*settings, error) {
	s := &settings{
		Schema:     v.GetString("schema"),
		Endpoint:   v.GetString("endpoint"),
		Data:       v.GetString("data"),
		Region:     v.GetString("region"),
		Profile:    v.GetString("profile"),
		Output:     strings.ToLower(v.GetString("output")),
		Cursor:     v.GetString("cursor"),
		All:        v.GetBool("all"),
		Consistent: v.GetBool("consistent"),
		Explain:    v.GetBool("explain"),
		Capacity:   v.GetBool("capacity"),
		Verbose:    v.GetBool("verbose"),
		ConfigFile: v.ConfigFileUsed(),
	}
	s.SchemaSource = source(v, fs, getenv, "schema")
	limit := strings.TrimSpace(v.GetString("limit"))
	n, err := strconv.Atoi(limit)
	if err != nil {
		return nil, &usageError{err: fmt.Errorf("invalid --limit %q: want a whole number", limit)}
	}
	s.Limit = n
	if s.Limit < 0 || s.Limit > math.MaxInt32 {
		return nil, &usageError{err: fmt.Errorf("invalid --limit %d: want 1 to %d (0 for the default page size)", s.Limit, math.MaxInt32)}
	}
	if !contains(outputFormats, s.Output) {
		return nil, &usageError{err: fmt.Errorf("invalid output format %q: want one of %s", s.Output, strings.Join(outputFormats, ", "))}
	}
	if s.Endpoint == "" {
		s.Endpoint = defaultEndpoint
	}
	return s, nil
}

// source says where a setting came from, for messages such as "no schema
// loaded (looked for ./adjl.yaml)".
func source(v *viper.Viper, fs *pflag.FlagSet, getenv func(string) (string, bool), key string) string {
	if f := fs.Lookup(key); f != nil && f.Changed {
		return "flag"
	}
	if _, ok := getenv(envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))); ok {
		return "env"
	}
	if v.InConfig(key) {
		return "config"
	}
	return "default"
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
	v, err := newViper(fs, getenv)
	if err != nil {
		return nil, fs.Args(), err
	}
	s, err := resolve(v, fs, getenv)
	if err != nil {
		// Reported properly once cobra has parsed; keep the schema path.
		s = &settings{Schema: v.GetString("schema"), SchemaSource: source(v, fs, getenv, "schema")}
	}
	return s, fs.Args(), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
