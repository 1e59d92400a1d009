package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Version is the only schema format version this adjl reads.
const Version = 1

// Load reads and validates the schema file at path. A file that cannot be
// read gives a wrapped *fs.PathError (errors.Is(err, fs.ErrNotExist) works);
// an invalid file gives *Error or Errors (IsInvalid reports true).
func Load(path string) (*Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	defer f.Close()
	// A limited read: the path may name something endless (/dev/zero, a
	// FIFO) or huge.
	data, err := io.ReadAll(io.LimitReader(f, MaxSchemaBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err) // a *PathError already
	}
	return Parse(path, data)
}

// Limits on what a schema may be: a real one is a few kilobytes and a few
// hundred YAML nodes. Past them, reading it would only cost time and memory
// (a few kilobytes of anchors and aliases can stand for billions of nodes).
const (
	MaxSchemaBytes = 1 << 20
	MaxSchemaNodes = 100_000
)

// Parse validates schema text; file is used only in messages. Every problem
// found is reported (not just the first), each with its line and column.
func Parse(file string, data []byte) (*Schema, error) {
	c := &collect{file: file}
	if len(data) > MaxSchemaBytes {
		c.addf(1, 1, "the file is over %d bytes; a schema is at most 1 MiB (is --schema the right file?)", MaxSchemaBytes)
		return nil, c.result()
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			c.addf(1, 1, "schema is empty; start with \"version: 1\", then table, entities and relations")
		} else {
			c.syntax(err)
		}
		return nil, c.result()
	}
	if expandedNodes(&doc, map[*yaml.Node]int{}) > MaxSchemaNodes {
		c.addf(1, 1, "the schema stands for more than %d YAML nodes (each alias *name counted as all it repeats, an alias inside its own anchor as endless); use fewer aliases", MaxSchemaNodes)
		return nil, c.result()
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		c.addf(extra.Line, extra.Column, "the file holds more than one YAML document; keep one schema per file and remove the second \"---\"")
	case !errors.Is(err, io.EOF):
		c.syntax(err)
	}
	b := newBuilder(c, file)
	b.document(&doc)
	b.validate()
	if err := c.result(); err != nil {
		return nil, err
	}
	b.s.indexPrefixes()
	return b.s, nil
}

// expandedNodes counts the nodes of n with every alias counted as the
// nodes it stands for, stopping once the count passes MaxSchemaNodes. Each
// node's count is computed once (memo); a node met again while it is being
// counted (an alias inside its own anchor) counts as over the limit.
func expandedNodes(n *yaml.Node, memo map[*yaml.Node]int) int {
	const counting = -1
	if n == nil {
		return 0
	}
	switch v, ok := memo[n]; {
	case ok && v == counting:
		return MaxSchemaNodes + 1
	case ok:
		return v
	}
	memo[n] = counting
	total := 1
	if n.Kind == yaml.AliasNode {
		total += expandedNodes(n.Alias, memo)
	}
	for _, c := range n.Content {
		if total > MaxSchemaNodes {
			break
		}
		total += expandedNodes(c, memo)
	}
	total = min(total, MaxSchemaNodes+1)
	memo[n] = total
	return total
}

var yamlLineRE = newLazyRE(`^yaml: line (\d+): (.*)$`)

// parserProblems are the YAML parser's (not scanner's) messages; the library
// numbers their lines from 0, unlike every other message.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// syntax turns a YAML parser error ("yaml: line 3: ...") into an *Error.
// The parser reports no column, so the column is 1.
func (c *collect) syntax(err error) {
	msg := err.Error()
	line := 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			line = n
		}
		msg = m[2]
		if parserProblems[msg] {
			line++ // the parser reports these lines counting from 0
		}
	}
	c.addf(line, 1, "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// builder turns the YAML tree into a Schema, remembering where each part
// came from so cross-checks (validate.go) can point at the right line.
type builder struct {
	c   *collect
	s   *Schema
	ent map[*Entity]*entitySrc
	rel map[*Relation]*relationSrc
	// include holds table.index.include entries, checked once all attributes are known.
	include []*yaml.Node
	// ttl is table.ttl's value, checked once all attributes are known.
	ttl *yaml.Node
}

type entitySrc struct {
	key, prefix *yaml.Node
	attrs       map[string]*yaml.Node
	// badPrefix: the prefix clashes with another entity's, so relations
	// using the entity are left out of later cross-checks.
	badPrefix bool
}

type relationSrc struct {
	key, from, to, fromPrefix, toPrefix, edge *yaml.Node
	verbs                                     map[VerbKind]*yaml.Node
	counterFrom, counterTo                    *yaml.Node
	attrs                                     map[string]*yaml.Node
	sort                                      pair // the sort block, if any
	// badPrefix: a role prefix clashes with another entity's prefix.
	badPrefix bool
}

func newBuilder(c *collect, file string) *builder {
	return &builder{
		c:   c,
		s:   &Schema{File: file},
		ent: make(map[*Entity]*entitySrc),
		rel: make(map[*Relation]*relationSrc),
	}
}

const topExample = "version: 1, then table:, entities: and relations:"

func (b *builder) document(doc *yaml.Node) {
	root := doc
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			b.c.addf(1, 1, "schema is empty; start with \"version: 1\"")
			return
		}
		root = doc.Content[0]
	}
	if isNull(deref(root)) {
		b.c.addf(root.Line, root.Column, "schema is empty; start with \"version: 1\"")
		return
	}
	f := b.c.fields(root, "the schema", topExample, "version", "table", "entities", "relations")
	if deref(root).Kind != yaml.MappingNode {
		return
	}
	b.c.require(f, deref(root), "the schema",
		[2]string{"version", `"version: 1" at the top`},
		[2]string{"table", `a table: block with at least name:`},
		[2]string{"entities", `an entities: block, e.g. student: {prefix: "STU#"}`})
	if p, ok := f["version"]; ok {
		if v, ok := b.c.integer(p, "version"); ok && v != Version {
			b.c.addf(p.val.Line, p.val.Column, "unsupported schema version %d; this adjl reads version %d", v, Version)
		}
		b.s.Version = Version
	}
	if p, ok := f["table"]; ok {
		b.table(p)
	}
	if p, ok := f["entities"]; ok {
		b.entities(p)
	}
	if p, ok := f["relations"]; ok {
		b.relations(p)
	}
}
