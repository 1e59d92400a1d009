package ops

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/adjl/adjl/schema"
)

// cursorKey signs cursors. It is compiled in on purpose: the MAC is tamper
// evidence (a hand-edited or truncated cursor is refused with a clear
// message), not secrecy — the keys in a cursor are the user's own data.
var cursorKey = []byte("adjl cursor v1: tamper evidence, not a secret")

const macLen = 12

// cursor is the position after the last item a page returned. K is used by
// unsharded lists, S (one entry per shard) by sharded ones.
type cursor struct {
	V int               `json:"v"`
	Q string            `json:"q"`
	K map[string]string `json:"k,omitempty"`
	S []shardCursor     `json:"s,omitempty"`
}

// shardCursor is one shard's position: after K, or D (done) when every item
// of the shard has been returned. Empty means the shard has not been read.
type shardCursor struct {
	K map[string]string `json:"k,omitempty"`
	D bool              `json:"d,omitempty"`
}

// queryIdentity binds a cursor to the query it came from: the same list
// with another page size is the same query; another key, direction,
// relation, index, table, entity flag or shard count is not.
func queryIdentity(table, index, rel string, dir Direction, key string, withEntity bool, shards int) string {
	var b bytes.Buffer
	for _, part := range []string{table, index, rel, strconv.Itoa(int(dir)), key, strconv.FormatBool(withEntity), strconv.Itoa(shards)} {
		b.WriteString(strconv.Quote(part))
		b.WriteByte(0)
	}
	sum := sha256.Sum256(b.Bytes())
	return hex.EncodeToString(sum[:8])
}

// descendingIdentity is the identity of the same query read last first: a
// cursor of one direction is refused in the other. Ascending identities
// are unchanged, so cursors printed before --desc existed stay valid.
func descendingIdentity(ident string) string {
	sum := sha256.Sum256([]byte(ident + "\x00desc"))
	return hex.EncodeToString(sum[:8])
}

func encodeCursor(c cursor) string {
	c.V = 1
	data, err := json.Marshal(c)
	if err != nil {
		panic(fmt.Sprintf("marshal cursor: %v", err)) // maps of strings always marshal
	}
	return base64.RawURLEncoding.EncodeToString(append(data, macOf(data)...))
}

// macOf is the MAC a cursor carries after its JSON.
func macOf(data []byte) []byte {
	mac := hmac.New(sha256.New, cursorKey)
	mac.Write(data)
	return mac.Sum(nil)[:macLen]
}

var errBadCursor = &InputError{Msg: "invalid cursor: it was altered or truncated; rerun without --cursor to start over"}

// decodeCursor checks the MAC and the query identity of token.
func decodeCursor(token, ident string, shards int) (cursor, error) {
	var c cursor
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) <= macLen {
		return c, errBadCursor
	}
	data, sum := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	if !hmac.Equal(sum, macOf(data)) {
		return c, errBadCursor
	}
	if err := json.Unmarshal(data, &c); err != nil || c.V != 1 {
		return c, errBadCursor
	}
	if c.Q != ident {
		return c, &InputError{Msg: "cursor belongs to a different query; use the cursor printed by the same command (same relation, key and direction), or rerun without --cursor"}
	}
	if shards > 1 && len(c.S) != shards {
		return c, errBadCursor
	}
	return c, nil
}

// checkCursor refuses a cursor whose positions could make a Query start
// anywhere but in the partitions of the list it belongs to. The MAC key is
// compiled in, so a cursor can be re-signed after its keys were edited: the
// query identity it carries proves nothing about them. Each position must
// name exactly the plan's key attributes, the partition its shard reads,
// and a sort key in the relation's range (in reverse, the table keys of an
// edge to the list's key), as every cursor built from an edge does.
func (p *plan) checkCursor(c cursor) error {
	positions := []map[string]string{c.K}
	if len(p.parts) > 1 {
		positions = positions[:0]
		for _, s := range c.S {
			positions = append(positions, s.K)
		}
	} else if len(c.S) > 0 {
		return errBadCursor
	}
	if len(positions) != len(p.parts) {
		return errBadCursor
	}
	for i, k := range positions {
		if len(k) == 0 {
			continue
		}
		if len(k) != len(p.keyAttrs) {
			return errBadCursor
		}
		for _, n := range p.keyAttrs {
			if k[n] == "" {
				return errBadCursor
			}
		}
		if !p.positionOf(k, p.parts[i]) || !p.isEdge(p.startKey(k)) {
			return errBadCursor // not the keys of an edge of this list's key
		}
	}
	return nil
}

// positionOf reports whether k is where an edge of the list sits in
// partition part: its partition attribute(s), and a sort key of the shape
// the list's index gives the edge with these table keys.
func (p *plan) positionOf(k map[string]string, part string) bool {
	l, o := p.l, p.ord
	switch {
	case o.forwardIndex():
		return k[l.PK] == part && strings.HasPrefix(k[schema.ForwardSK], o.prefix())
	case p.dir == Forward:
		return k[l.PK] == part && strings.HasPrefix(k[l.SK], p.rel.EdgeSKPrefix())
	case o.multi():
		return k[l.IndexPK] == part && k[l.Type] == p.rel.Name && k[l.IndexSK] == k[l.PK]
	case p.rel.IsComposite():
		_, ok := schema.CompositeValueText(p.rel.From.Prefix, k[l.IndexSK], k[l.PK])
		return k[l.IndexPK] == part && ok
	}
	return k[l.IndexPK] == part && k[l.IndexSK] == k[l.PK]
}
