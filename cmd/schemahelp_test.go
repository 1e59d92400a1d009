package cmd

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adjl/adjl/schema"
	"go.yaml.in/yaml/v3"
)

// referenceBase uses the mapping form of every field that has one, so an
// unknown field can be planted in each mapping the parser checks.
const referenceBase = `version: 1
table:
  name: school
  billing: PROVISIONED
  capacity: {read: 5, write: 5}
  keys: {pk: PK, sk: SK}
  index: {name: GSI1, projection: INCLUDE, include: [grade], keys: {pk: GSI1PK, sk: GSI1SK}}
entities:
  user: {prefix: "USER#", attributes: {name: string}}
relations:
  follow:
    from: {entity: user, prefix: "ACTOR#"}
    to: {entity: user, prefix: "TARGET#"}
    edge: ""
    verbs: {link: follow, unlink: unfollow, check: follows, forward: following, reverse: followers}
    attributes: {grade: string}
    counters: {from: {name: followingCount}, to: {name: followerCount, shards: 2}}
    shards: 2
    sort: {by: grade}
`

// TestSchemaReferenceMatchesTheParser plants an unknown field in each
// mapping of the schema file and reads the fields the parser allows there
// from its error: they must be exactly the fields adjl help schema
// documents at that place.
func TestSchemaReferenceMatchesTheParser(t *testing.T) {
	dir := t.TempDir()
	load := func(name, text string) error {
		_, err := schema.Load(writeFile(t, filepath.Join(dir, name), text))
		return err
	}
	if err := load("base.yaml", referenceBase); err != nil {
		t.Fatalf("the base schema is invalid: %v", err)
	}
	names := map[string]string{"entities": "user", "relations": "follow"}
	allowedRE := regexp.MustCompile(`unknown field "zzzUnknown" in [^;]*; allowed fields: (.*)`)
	mappings := []string{"", "table", "table.capacity", "table.keys", "table.index", "table.index.keys", "entities.NAME", "relations.NAME",
		"relations.NAME.from", "relations.NAME.to", "relations.NAME.verbs", "relations.NAME.counters",
		"relations.NAME.counters.from", "relations.NAME.counters.to", "relations.NAME.sort"}
	documented := map[string]bool{}
	for _, f := range schemaReference {
		documented[f.path] = true
	}
	covered := map[string]bool{}
	for _, m := range mappings {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(referenceBase), &doc); err != nil {
			t.Fatal(err)
		}
		node := doc.Content[0]
		var segs []string
		if m != "" {
			segs = strings.Split(m, ".")
		}
		for i, seg := range segs {
			if seg == "NAME" {
				seg = names[segs[i-1]]
			}
			node = mapValue(node, seg)
			if node == nil {
				t.Fatalf("%s: no %s in the base schema", m, seg)
			}
		}
		node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "zzzUnknown"}, &yaml.Node{Kind: yaml.ScalarNode, Value: "1"})
		out, err := yaml.Marshal(&doc)
		if err != nil {
			t.Fatal(err)
		}
		err = load("planted.yaml", string(out))
		match := allowedRE.FindStringSubmatch(errString(err))
		if match == nil {
			t.Errorf("%q: no allowed-fields message for a planted field: %v", m, err)
			continue
		}
		allowed := strings.Split(strings.TrimSpace(match[1]), ", ")
		var want []string
		for _, f := range schemaReference {
			parent, leaf := splitPath(f.path)
			if parent == m {
				want = append(want, leaf)
				covered[f.path] = true
			}
		}
		slices.Sort(allowed)
		slices.Sort(want)
		if !slices.Equal(allowed, want) {
			t.Errorf("%q: the parser allows %v, adjl help schema documents %v", m, allowed, want)
		}
	}
	// Every documented field sits in a checked mapping, or is a container
	// the parser reads as free-form names (entities, relations, attributes,
	// tags).
	for _, f := range schemaReference {
		if !covered[f.path] {
			t.Errorf("documented field %s is in no mapping the test checks", f.path)
		}
	}
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func splitPath(p string) (parent, leaf string) {
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestHelpSchemaPrintsTheReference(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "help", "schema")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	for _, f := range schemaReference {
		if !strings.Contains(r.out, "  "+f.path+" ") {
			t.Errorf("adjl help schema lacks %s", f.path)
		}
	}
}
