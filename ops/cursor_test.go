package ops

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// resign decodes token without checking it, lets edit change the cursor and
// signs the result with the compiled-in key, as anyone can: the MAC is tamper
// evidence against accidents, not a secret.
func resign(t *testing.T, token string, edit func(c *cursor)) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	var c cursor
	if err := json.Unmarshal(raw[:len(raw)-macLen], &c); err != nil {
		t.Fatal(err)
	}
	edit(&c)
	return encodeCursor(c)
}

func isBadCursor(err error) bool {
	var ie *InputError
	return errors.As(err, &ie) && strings.HasPrefix(ie.Msg, "invalid cursor")
}

// refusesEditedCursor checks that List and ListAll refuse q with cursor as
// an invalid cursor, before any request is sent.
func refusesEditedCursor(t *testing.T, m *engineAPI, st *Store, q ListQuery, cursor, name string) {
	t.Helper()
	m.reset()
	q.Cursor = cursor
	if _, err := st.List(ctx, q); !isBadCursor(err) {
		t.Errorf("%s: got %v, want an invalid cursor", name, err)
	}
	if ops := m.ops(); len(ops) != 0 {
		t.Errorf("%s: sent %v", name, ops)
	}
	if _, err := st.ListAll(ctx, q, func(Item) error { return nil }); !isBadCursor(err) {
		t.Errorf("%s (--all): got %v, want an invalid cursor", name, err)
	}
}

// refusesEditsPagesOnUnchanged checks that each edit of the cursor next,
// re-signed, is refused before any request (refusesEditedCursor), and that
// next re-signed unchanged still pages on to want items, each with attr
// equal to value.
func refusesEditsPagesOnUnchanged(t *testing.T, m *engineAPI, st *Store, q ListQuery, next string, edits map[string]func(c *cursor), want int, attr, value string) {
	t.Helper()
	for name, edit := range edits {
		refusesEditedCursor(t, m, st, q, resign(t, next, edit), name)
	}
	q.Cursor = resign(t, next, func(*cursor) {})
	page := must[*Page](t)(st.List(ctx, q))
	eq(t, "items after an unchanged re-signed cursor", len(page.Items), want)
	for _, it := range page.Items {
		eq(t, attr+" of an item after it", sOf(it, attr), value)
	}
}

// TestCursorEditedKeysCannotLeaveTheQueryPartition: a re-signed cursor whose
// keys were edited to point into another student's partition, outside the
// relation's sort-key range, or at a key of another shape, is refused before
// any request is sent; the same cursor re-signed unchanged still pages on.
func TestCursorEditedKeysCannotLeaveTheQueryPartition(t *testing.T) {
	st, m, rel := schoolStore(t)
	seedCourses(m, rel, "STU#a", 4)
	seedCourses(m, rel, "STU#b", 4)
	seedEntity(m, "STU#b")
	q := ListQuery{Relation: rel, Key: "a", Limit: 2}
	p := must[*Page](t)(st.List(ctx, q))
	refusesEditsPagesOnUnchanged(t, m, st, q, p.Next, map[string]func(c *cursor){
		"partition of another student":  func(c *cursor) { c.K["PK"] = "STU#b" },
		"another student's entity item": func(c *cursor) { c.K["PK"], c.K["SK"] = "STU#b", "STU#b" },
		"sort key outside the relation": func(c *cursor) { c.K["SK"] = "STU#a" },
		"empty partition":               func(c *cursor) { c.K["PK"] = "" },
		"missing sort key":              func(c *cursor) { delete(c.K, "SK") },
		"extra key attribute":           func(c *cursor) { c.K["GSI1PK"] = "CRS#0" },
		"shard positions on an unsharded list": func(c *cursor) {
			c.S = []shardCursor{{K: map[string]string{"PK": "STU#b", "SK": "ENROLL#CRS#0"}}}
		},
	}, 2, "PK", "STU#a")
}

// TestShardedCursorEditedKeysCannotLeaveTheShards: each shard's position must
// lie in that shard's index partition of the list's key and name an edge to
// it; moving one into another shard, another user's partition or onto
// another edge's table keys is refused without a request.
func TestShardedCursorEditedKeysCannotLeaveTheShards(t *testing.T) {
	sc := social(4)
	st, m := recordedStore(t, sc, Options{})
	rel := sc.Relations[0]
	for i := range 12 {
		seedEdge(m, rel, fmt.Sprintf("ACTOR#u%02d", i), "TARGET#bob")
		seedEdge(m, rel, fmt.Sprintf("ACTOR#u%02d", i), "TARGET#carol")
	}
	q := ListQuery{Relation: rel, Direction: Reverse, Key: "bob", Limit: 5}
	p := must[*Page](t)(st.List(ctx, q))
	first := -1 // a shard the first page has a position in
	c := must[cursor](t)(decodeCursor(p.Next, must[*plan](t)(st.plan(q)).ident, 4))
	for i, s := range c.S {
		if len(s.K) > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatal("no shard position in the first page's cursor")
	}
	other := sc.Layout().ReversePartition(rel, "TARGET#bob", (first+1)%4)
	refusesEditsPagesOnUnchanged(t, m, st, q, p.Next, map[string]func(c *cursor){
		"another shard's partition":  func(c *cursor) { c.S[first].K["GSI1PK"] = other },
		"another user's partition":   func(c *cursor) { c.S[first].K["GSI1PK"] = sc.Layout().ReversePartition(rel, "TARGET#carol", first) },
		"table keys of another edge": func(c *cursor) { c.S[first].K["SK"] = "TARGET#carol" },
		"table key unlike the index": func(c *cursor) { c.S[first].K["PK"] = "ACTOR#zz" },
		"index sort key not a from key": func(c *cursor) {
			c.S[first].K["GSI1SK"], c.S[first].K["PK"] = "TARGET#x", "TARGET#x"
		},
		"one shard fewer":        func(c *cursor) { c.S = c.S[:3] },
		"an unsharded position":  func(c *cursor) { c.K = c.S[first].K; c.S = nil },
		"missing index sort key": func(c *cursor) { delete(c.S[first].K, "GSI1SK") },
	}, 5, "SK", "TARGET#bob")
}

// FuzzDecodeCursor: any --cursor text, and any cursor content signed with
// the compiled-in key, is either refused as input or accepted with every
// position inside the partitions of the list it is used with.
func FuzzDecodeCursor(f *testing.F) {
	sc := social(4)
	rel := sc.Relations[0]
	school := school()
	st, st1 := New(newEngine(f, sc), sc, Options{}), New(newEngine(f, school), school, Options{})
	rq := ListQuery{Relation: rel, Direction: Reverse, Key: "bob"}
	fq := ListQuery{Relation: school.Relations[0], Key: "a"}
	rp, fp := must[*plan](f)(st.plan(rq)), must[*plan](f)(st1.plan(fq))
	f.Add([]byte(`{"v":1,"q":"`+fp.ident+`","k":{"PK":"STU#a","SK":"ENROLL#CRS#1"}}`), true)
	f.Add([]byte(`{"v":1,"q":"`+rp.ident+`","s":[{"k":{"GSI1PK":"TARGET#bob#0","GSI1SK":"ACTOR#a","PK":"ACTOR#a","SK":"TARGET#bob"}},{"d":true},{},{}]}`), true)
	f.Add([]byte(`{"v":1,"q":"`+fp.ident+`","k":{"PK":"STU#b","SK":"ENROLL#CRS#1"}}`), true)
	f.Add([]byte("eyJ2IjoxLCJxIjoiIn0"), false)
	f.Add([]byte(""), false)
	f.Fuzz(func(t *testing.T, data []byte, sign bool) {
		token := string(data)
		if sign {
			token = base64.RawURLEncoding.EncodeToString(append(data, macOf(data)...))
		}
		for _, c := range []struct {
			st *Store
			p  *plan
		}{{st, rp}, {st1, fp}} {
			cur, err := decodeCursor(token, c.p.ident, len(c.p.parts))
			if err == nil {
				err = c.p.checkCursor(cur)
			}
			if err != nil {
				var ie *InputError
				if !errors.As(err, &ie) || ie.Msg == "" {
					t.Fatalf("cursor %q: %T %v, want *InputError", token, err, err)
				}
				continue
			}
			positions := []map[string]string{cur.K}
			if len(c.p.parts) > 1 {
				positions = nil
				for _, s := range cur.S {
					positions = append(positions, s.K)
				}
			}
			pk := "PK"
			if c.p.dir == Reverse {
				pk = "GSI1PK"
			}
			for i, k := range positions {
				if len(k) > 0 && k[pk] != c.p.parts[i] {
					t.Fatalf("cursor %q accepted with position %v outside partition %q", token, k, c.p.parts[i])
				}
			}
			m := c.st.newMerger(c.p, cur, 10)
			for i, src := range m.srcs {
				if src.esk != nil && sOf(src.esk, pk) != c.p.parts[i] {
					t.Fatalf("cursor %q starts shard %d at %v", token, i, src.esk)
				}
			}
		}
	})
}
