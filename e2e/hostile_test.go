package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adjl/adjl/cmd"
	"github.com/adjl/adjl/local"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.yaml.in/yaml/v3"
)

// hostileCase is one entry of the corpus in testdata/hostile/*.yaml: a
// command line adjl must refuse (or answer without a change) with a clear
// message and its documented exit code.
type hostileCase struct {
	Name string   `yaml:"name"`
	Args []string `yaml:"args"`
	Exit int      `yaml:"exit"`
	// Stderr and Stdout are regular expressions the streams must match.
	// Without Stdout, a refused command (exit 2 or more) must print nothing
	// on stdout.
	Stderr string `yaml:"stderr"`
	Stdout string `yaml:"stdout"`
	// Schema replaces --schema school.yaml: a file of testdata/hostile/schemas
	// or one the test generates (gen/NAME.yaml, see generatedFiles).
	Schema string `yaml:"schema"`
	// Config is the content of a config file passed with --config.
	Config *string `yaml:"config"`
	// Env is set for the command (ADJL_* settings, credentials).
	Env map[string]string `yaml:"env"`
	// Backend marks a case whose requests reach the backend: it also runs
	// on the reference server.
	Backend bool `yaml:"backend"`

	file string // the corpus file, for messages
}

// loadCorpus reads every case of testdata/hostile/*.yaml.
func loadCorpus(t *testing.T) []hostileCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "hostile", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var all []hostileCase
	names := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []hostileCase
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cases {
			c.file = filepath.Base(f)
			key := c.file + ": " + c.Name
			if c.Name == "" || names[key] || len(c.Args) == 0 || c.Stderr == "" && c.Exit >= 2 {
				t.Fatalf("%s: case %q needs a unique name, args, and a stderr pattern when refused", c.file, c.Name)
			}
			names[key] = true
			all = append(all, c)
		}
	}
	return all
}

// TestHostileInput runs the corpus on the embedded engine (and the cases
// that reach the backend on the reference server too). Each case must exit
// with its code (never 10, never a panic), say what was wrong on stderr,
// and leave every table byte-for-byte as it was.
func TestHostileInput(t *testing.T) {
	corpus := loadCorpus(t)
	perFile := map[string]int{}
	for _, c := range corpus {
		perFile[c.file]++
	}
	t.Logf("%d cases: %v", len(corpus), perFile)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			h := newHostileRun(t, b)
			before := h.dump(t)
			for _, c := range corpus {
				if b.endpoint != "" && !c.Backend {
					continue
				}
				t.Run(strings.TrimSuffix(c.file, ".yaml")+"/"+c.Name, func(t *testing.T) {
					h.check(t, c)
					if after := h.dump(t); after != before {
						t.Fatalf("the tables changed:\n%s", changedLines(before, after))
					}
				})
			}
		})
	}
}

// hostileRun is the world the corpus runs in: a work directory holding the
// schemas (with this run's table names), a seeded table, and the values
// the cases refer to as {{...}}.
type hostileRun struct {
	b      backend
	work   string
	tables []string
	vars   map[string]string
}

func newHostileRun(t *testing.T, b backend) *hostileRun {
	work := t.TempDir()
	t.Chdir(work)
	home := filepath.Join(work, ".home")
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(home, "aws-config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "aws-credentials"),
		"NO_COLOR": "1",
	} {
		t.Setenv(k, v)
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ADJL_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	table, err := tableName()
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileRun{b: b, work: work, vars: map[string]string{"work": work}}
	for _, s := range []struct{ file, example, table string }{
		{"school.yaml", "school", table},
		{"social.yaml", "social", table + "_social"},
		{"other.yaml", "school", table + "_other"},
	} {
		data, err := readRepoFile(filepath.Join("examples", s.example+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := renameTable(data, s.table)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(work, s.file), out)
		h.tables = append(h.tables, s.table)
		if b.endpoint != "" {
			t.Cleanup(func() {
				newClient(b.endpoint, nil).DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(s.table)})
			})
		}
	}
	for _, dir := range []string{"schemas", "imports"} {
		statics, _ := filepath.Glob(filepath.Join(repoRoot, "e2e", "testdata", "hostile", dir, "*"))
		for _, f := range statics {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(work, dir, filepath.Base(f)), bytes.ReplaceAll(data, []byte("${TABLE}"), []byte(table)))
		}
	}
	for name, data := range generatedFiles() {
		writeFile(t, filepath.Join(work, "gen", name), data)
	}
	h.seed(t)
	return h
}

// globals are the flags every case starts with: the backend and the schema.
func (h *hostileRun) globals(schema string) []string {
	switch {
	case schema == "":
		schema = "school.yaml"
	case strings.HasPrefix(schema, "gen/"), slices.Contains([]string{"school.yaml", "social.yaml", "other.yaml"}, schema):
	default:
		schema = filepath.Join("schemas", schema)
	}
	args := []string{"--schema", schema}
	if h.b.endpoint != "" {
		args = append(args, "--endpoint", h.b.endpoint)
	}
	return args
}

// run runs adjl in process; a panic is reported as output and exit -1.
func (h *hostileRun) run(args []string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	func() {
		defer func() {
			if p := recover(); p != nil {
				code = -1
				fmt.Fprintf(&errb, "panic: %v\n%s", p, debug.Stack())
			}
		}()
		code = cmd.Run(args, strings.NewReader(""), &out, &errb)
	}()
	return code, out.String(), errb.String()
}

// must runs a setup command and fails the test if it fails.
func (h *hostileRun) must(t *testing.T, schema string, args ...string) string {
	t.Helper()
	code, out, errs := h.run(append(h.globals(schema), args...))
	if code != 0 {
		t.Fatalf("setup: adjl %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

// seed creates the tables and the items the cases read and refer to,
// values a terminal would act on among them, and keeps the cursors of
// first pages as {{cursor:NAME}}.
func (h *hostileRun) seed(t *testing.T) {
	for _, s := range []string{"school.yaml", "social.yaml", "other.yaml"} {
		h.must(t, s, "table", "create", "--wait")
	}
	h.must(t, "", "put", "student", "a91", "--set", "name=Ana", "--set", "email=ana@example.com")
	h.must(t, "", "put", "student", "esc", "--set", "name=\x1b[31mred\x1b[0m \u202eevil\u202c\tTab\nline")
	h.must(t, "", "put", "course", "math204", "--set", "title=Algebra", "--set", "credits=5")
	for _, s := range []string{"a91", "b02", "c03", "esc"} {
		h.must(t, "", "enroll", s, "math204", "--set", "grade=A")
		h.must(t, "", "enroll", s, "phys101")
		h.must(t, "", "enroll", "a91", "c"+s)
		h.must(t, "other.yaml", "enroll", s, "math204")
	}
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "frank"} {
		h.must(t, "social.yaml", "follow", u, "zed")
		h.must(t, "social.yaml", "follow", u, "yan")
	}
	cursor := func(name, schema string, args ...string) {
		var page struct{ Next string }
		out := h.must(t, schema, append(args, "--limit", "1", "-o", "json")...)
		if err := json.Unmarshal([]byte(out), &page); err != nil || page.Next == "" {
			t.Fatalf("setup: no cursor from %v: %v\n%s", args, err, out)
		}
		h.vars["cursor:"+name] = page.Next
	}
	cursor("members", "", "members", "math204")
	cursor("courses", "", "courses", "a91")
	cursor("members-with-entity", "", "members", "math204", "--with-entity")
	cursor("followers", "social.yaml", "followers", "zed")
	cursor("other-table", "other.yaml", "members", "math204")
	cursor("other-course", "", "members", "CRS#phys101")
	cursor("other-user", "social.yaml", "followers", "yan")
}

// dump is every item of every table, one canonical JSON line each, sorted.
func (h *hostileRun) dump(t *testing.T) string {
	t.Helper()
	client, done := h.client(t)
	defer done()
	var lines []string
	for _, table := range h.tables {
		p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
		for p.HasMorePages() {
			page, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			for _, it := range page.Items {
				lines = append(lines, table+" "+itemJSON(t, it))
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// client opens the backend the commands use: the data file (after adjl
// released it) or the server.
func (h *hostileRun) client(t *testing.T) (*dynamodb.Client, func()) {
	if h.b.endpoint != "" {
		return newClient(h.b.endpoint, nil), func() {}
	}
	eng, err := local.Open(localDataFile(h.work), local.Options{})
	if err != nil {
		t.Fatalf("open data file: %v", err)
	}
	return newClient("http://local.adjl", eng.HTTPClient()), func() { eng.Close() }
}

// check runs one case and checks its exit code and streams.
func (h *hostileRun) check(t *testing.T, c hostileCase) {
	for k, v := range c.Env {
		t.Setenv(k, h.expand(t, v))
	}
	args := h.globals(c.Schema)
	if c.Config != nil {
		path := filepath.Join(h.work, "config-"+strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return '-'
		}, c.Name)+".yaml")
		writeFile(t, path, []byte(h.expand(t, *c.Config)))
		args = append(args, "--config", path)
	}
	for _, a := range c.Args {
		args = append(args, h.expand(t, a))
	}
	code, stdout, stderr := h.run(args)
	show := fmt.Sprintf("%s %q\nexit %d\nstdout:\n%s\nstderr:\n%s", c.file, c.Name, code, clip(stdout), clip(stderr))
	if os.Getenv("HOSTILE_SHOW") != "" {
		t.Logf("SHOW %s", show)
	}
	switch {
	case code == -1 || strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:"):
		t.Fatalf("panic: %s", show)
	case code == cmd.ExitInternal:
		t.Fatalf("exit 10 (internal error): %s", show)
	case code != c.Exit:
		t.Fatalf("exit %d, want %d: %s", code, c.Exit, show)
	}
	// An import prints its bad lines (FILE:LINE: message) before the
	// "adjl: " line that sums them up.
	if c.Exit >= 2 && !strings.HasPrefix(stderr, "adjl: ") && !strings.Contains(stderr, "\nadjl: ") {
		t.Errorf("refused without an \"adjl: \" message: %s", show)
	}
	if c.Stderr != "" && !regexp.MustCompile(c.Stderr).MatchString(stderr) {
		t.Errorf("stderr does not match %q: %s", c.Stderr, show)
	}
	if c.Stdout != "" && !regexp.MustCompile(c.Stdout).MatchString(stdout) {
		t.Errorf("stdout does not match %q: %s", c.Stdout, show)
	}
	if c.Stdout == "" && c.Exit >= 2 && stdout != "" {
		t.Errorf("a refused command printed on stdout: %s", show)
	}
}

// expand replaces {{...}} in a corpus value:
//
//	{{work}}                 the work directory
//	{{cursor:NAME}}          a first page's cursor (see seed)
//	{{edit:NAME:HOW}}        that cursor altered: flip (one character),
//	                         cut (the last 5 characters), append, pad (1 MB)
//	{{forge:NAME:FIELD=V}}   that cursor with one key of its (first) position
//	                         changed and signed again with the compiled-in key
//	{{repeat:TEXT:N}}        TEXT N times
//	{{hex:HEX}}              raw bytes (invalid UTF-8 included)
func (h *hostileRun) expand(t *testing.T, s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		parts := strings.SplitN(m[2:len(m)-2], ":", 3)
		switch parts[0] {
		case "work":
			return h.work
		case "cursor":
			return h.cursor(t, parts[1])
		case "edit":
			c := h.cursor(t, parts[1])
			switch parts[2] {
			case "flip":
				b := []byte(c)
				i := len(b) / 2
				b[i] = map[bool]byte{true: 'B', false: 'A'}[b[i] == 'A']
				return string(b)
			case "cut":
				return c[:len(c)-5]
			case "append":
				return c + "AAAA"
			case "pad":
				return c + strings.Repeat("A", 1<<20)
			}
		case "forge":
			return forgeCursor(t, h.cursor(t, parts[1]), parts[2])
		case "repeat":
			n, err := strconv.Atoi(parts[2])
			if err != nil {
				t.Fatalf("placeholder %s: %v", m, err)
			}
			return strings.Repeat(parts[1], n)
		case "hex":
			b, err := hex.DecodeString(parts[1])
			if err != nil {
				t.Fatalf("placeholder %s: %v", m, err)
			}
			return string(b)
		}
		t.Fatalf("unknown placeholder %s", m)
		return ""
	})
}

var placeholder = regexp.MustCompile(`\{\{[^}]*\}\}`)

func (h *hostileRun) cursor(t *testing.T, name string) string {
	c, ok := h.vars["cursor:"+name]
	if !ok {
		t.Fatalf("no cursor %q", name)
	}
	return c
}

// cursorKey is adjl's cursor MAC key: compiled in and published (it is
// tamper evidence, not a secret), so anyone can sign an edited cursor.
var cursorKey = []byte("adjl cursor v1: tamper evidence, not a secret")

// forgeCursor changes one key of the cursor's first position (edit is
// "PK=STU#b02") and signs the result again.
func forgeCursor(t *testing.T, token, edit string) string {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < 12 {
		t.Fatalf("cursor %q: %v", token, err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw[:len(raw)-12], &c); err != nil {
		t.Fatal(err)
	}
	pos, _ := c["k"].(map[string]any)
	if pos == nil {
		for _, s := range c["s"].([]any) {
			if k, _ := s.(map[string]any)["k"].(map[string]any); k != nil {
				pos = k
				break
			}
		}
	}
	name, value, _ := strings.Cut(edit, "=")
	pos[name] = value
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, cursorKey)
	mac.Write(data)
	return base64.RawURLEncoding.EncodeToString(append(data, mac.Sum(nil)[:12]...))
}

// generatedFiles are hostile schemas too big or too odd to commit.
func generatedFiles() map[string][]byte {
	school, _ := readRepoFile(filepath.Join("examples", "school.yaml"))
	var bomb strings.Builder
	bomb.WriteString("version: 1\ntable: {name: school}\nentities:\n  e0: &E {prefix: \"STU#\", attributes: {")
	for i := range 2000 {
		fmt.Fprintf(&bomb, "a%d: string, ", i)
	}
	bomb.WriteString("}}\n")
	for i := 1; i < 2000; i++ {
		fmt.Fprintf(&bomb, "  e%d: *E\n", i)
	}
	var laughs strings.Builder
	laughs.WriteString("version: 1\nx0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&laughs, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d, ", i-1), 9), ", "))
	}
	laughs.WriteString("table: {name: school, tags: {a: *x9}}\n")
	var manyErrors strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&manyErrors, "field%d: %d\n", i, i)
	}
	var manyEntities strings.Builder
	manyEntities.WriteString("version: 1\ntable: {name: school}\nentities:\n")
	for i := range 20000 {
		fmt.Fprintf(&manyEntities, "  e%d: {prefix: \"E%d#\"}\n", i, i)
	}
	return map[string][]byte{
		"deep-sequences.yaml": []byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)),
		"deep-mappings.yaml":  []byte("version: 1\ntable: " + strings.Repeat("{a: ", 12000) + "x" + strings.Repeat("}", 12000) + "\n"),
		"deep-indent.yaml":    []byte(deepIndent(3000)),
		"alias-bomb.yaml":     []byte(bomb.String()),
		"billion-laughs.yaml": []byte(laughs.String()),
		"huge-comments.yaml":  append(append([]byte{}, school...), bytes.Repeat([]byte("# padding padding padding padding padding padding padding\n"), 40000)...),
		"huge-string.yaml":    []byte("version: 1\ntable: {name: \"" + strings.Repeat("x", 2<<20) + "\"}\n"),
		"long-line.yaml":      []byte("version: 1\ntable: {name: \"" + strings.Repeat("y", 900<<10) + "\"}\nentities: {}\n"),
		"many-errors.yaml":    []byte(manyErrors.String()),
		"many-entities.yaml":  []byte(manyEntities.String()),
		"binary.yaml":         []byte("version: 1\x00\x01\x02\xff\xfe table: {name: x}\n"),
		"latin1.yaml":         []byte("version: 1\ntable: {name: caf\xe9}\n"),
		"utf16.yaml":          append([]byte{0xff, 0xfe}, []byte("v\x00e\x00r\x00s\x00i\x00o\x00n\x00:\x00 \x001\x00\n\x00")...),
		"empty.yaml":          {},
		"only-comments.yaml":  []byte("# nothing here\n# at all\n"),
		"crlf.yaml":           bytes.ReplaceAll(school, []byte("\n"), []byte("\r\n")),
		// Import files (imports.yaml): each holds one bad line among good
		// ones, so a case shows that nothing is written before every line
		// is checked.
		"edges-oversized.csv":    []byte("from,to,grade\na91,z1,A\na91,z2," + strings.Repeat("g", 410<<10) + "\n"),
		"edges-many-bad.csv":     []byte("from,to,grade\n" + strings.Repeat("STU#,CRS#,A\n", 5000)),
		"edges-long-line.ndjson": []byte(`{"from":"a91","to":"z1"}` + "\n" + `{"from":"a91","to":"z2","grade":"` + strings.Repeat("h", 2<<20) + `"}` + "\n"),
		"edges-binary.csv":       []byte("from,to,grade\na91,z1,A\n\x00\x01\x02,\xff\xfe,\x80\n"),
		"edges-latin1.csv":       []byte("from,to,grade\na91,z1,A\na91,z2,caf\xe9\n"),
		"edges-latin1.ndjson":    []byte(`{"from":"a91","to":"z1"}` + "\n" + `{"from":"a91","to":"z2","grade":"caf` + "\xe9" + `"}` + "\n"),
		"edges-utf16.csv":        append([]byte{0xff, 0xfe}, []byte("f\x00r\x00o\x00m\x00,\x00t\x00o\x00\n\x00")...),
	}
}

// deepIndent nests block mappings n levels deep under table.
func deepIndent(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\ntable:\n")
	for i := range n {
		b.WriteString(strings.Repeat(" ", i+1) + "k:\n")
	}
	b.WriteString(strings.Repeat(" ", n+1) + "v\n")
	return b.String()
}

// itemJSON renders an item exactly, in DynamoDB's JSON with its names in
// order, so two dumps are equal only if every type and byte is.
func itemJSON(t *testing.T, it map[string]types.AttributeValue) string {
	var b strings.Builder
	writeItem(t, &b, it)
	return b.String()
}

func writeItem(t *testing.T, b *strings.Builder, it map[string]types.AttributeValue) {
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(it)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k) + ":")
		writeValue(t, b, it[k])
	}
	b.WriteByte('}')
}

func writeValue(t *testing.T, b *strings.Builder, v types.AttributeValue) {
	quoteAll := func(ss []string) string {
		q := make([]string, len(ss))
		for i, s := range ss {
			q[i] = strconv.Quote(s)
		}
		return strings.Join(q, ",")
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		b.WriteString(`{"S":` + strconv.Quote(v.Value) + `}`)
	case *types.AttributeValueMemberN:
		b.WriteString(`{"N":` + strconv.Quote(v.Value) + `}`)
	case *types.AttributeValueMemberB:
		b.WriteString(`{"B":"` + base64.StdEncoding.EncodeToString(v.Value) + `"}`)
	case *types.AttributeValueMemberBOOL:
		b.WriteString(`{"BOOL":` + strconv.FormatBool(v.Value) + `}`)
	case *types.AttributeValueMemberNULL:
		b.WriteString(`{"NULL":true}`)
	case *types.AttributeValueMemberSS:
		b.WriteString(`{"SS":[` + quoteAll(slices.Sorted(slices.Values(v.Value))) + `]}`)
	case *types.AttributeValueMemberNS:
		b.WriteString(`{"NS":[` + quoteAll(slices.Sorted(slices.Values(v.Value))) + `]}`)
	case *types.AttributeValueMemberBS:
		var bs []string
		for _, x := range v.Value {
			bs = append(bs, base64.StdEncoding.EncodeToString(x))
		}
		b.WriteString(`{"BS":[` + quoteAll(slices.Sorted(slices.Values(bs))) + `]}`)
	case *types.AttributeValueMemberL:
		b.WriteString(`{"L":[`)
		for i, x := range v.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(t, b, x)
		}
		b.WriteString(`]}`)
	case *types.AttributeValueMemberM:
		b.WriteString(`{"M":`)
		writeItem(t, b, v.Value)
		b.WriteByte('}')
	default:
		t.Fatalf("unknown attribute value %T", v)
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// changedLines lists the lines only in a and only in b.
func changedLines(a, b string) string {
	as, bs := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for _, l := range as {
		if !slices.Contains(bs, l) {
			out = append(out, "- "+clip(l))
		}
	}
	for _, l := range bs {
		if !slices.Contains(as, l) {
			out = append(out, "+ "+clip(l))
		}
	}
	return strings.Join(out, "\n")
}
