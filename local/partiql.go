package local

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
	"github.com/adjl/adjl/local/internal/partiql"
)

// PartiQL statements run as the item operations DynamoDB translates them
// into: INSERT as PutItem with attribute_not_exists on the partition key,
// UPDATE as UpdateItem of an existing item, DELETE as DeleteItem, SELECT as
// Query (one per key range its WHERE names) or Scan, EXISTS as a
// transaction's ConditionCheck. Package partiql turns the statement into keys
// and expression text; this file runs them through the same expression
// parsing (exprs), conditional writes and source walks as the item API.

// errDuplicateItem is what an INSERT of an existing key fails with.
const errDuplicateItem = "DuplicateItemException"

func duplicateItem() *apiError {
	return &apiError{Type: errDuplicateItem, Message: "Duplicate primary key exists in table"}
}

// maxStatementBytes is the length limit of one PartiQL statement.
const maxStatementBytes = 8192

// checkStatements validates the statement list of a BatchExecuteStatement
// or ExecuteTransaction as DynamoDB does: present, 1 to max long, and each
// member's statement, parameters and ReturnValuesOnConditionCheckFailure
// well formed. list names the member ("statements").
func checkStatements[S interface{ statement() parameterizedStatement }](list string, stmts []S, max int) error {
	switch n := len(stmts); {
	case stmts == nil:
		return validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", list)
	case n == 0:
		return validationf("1 validation error detected: Value '[]' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1", list)
	case n > max:
		return validationf("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", list, max)
	}
	for i, m := range stmts {
		s := m.statement()
		field := fmt.Sprintf("%s.%d.member", list, i+1)
		if err := checkStatement(field+".statement", s.Statement); err != nil {
			return err
		}
		if err := checkParameters(field+".parameters", s.Parameters); err != nil {
			return err
		}
		if err := checkReturnOnFailure(s.ReturnValuesOnConditionCheckFailure); err != nil {
			return err
		}
	}
	return nil
}

// checkStatement applies the Statement member's constraints; field is its
// name in messages.
func checkStatement(field string, s *string) error {
	switch {
	case s == nil:
		return validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	case *s == "":
		return validationf("1 validation error detected: Value '' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1", field)
	case len(*s) > maxStatementBytes:
		return validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to 8192", *s, field)
	}
	return nil
}

// checkParameters refuses an empty Parameters list (null is fine).
func checkParameters(field string, params []attr.Value) error {
	if params != nil && len(params) == 0 {
		return validationf("1 validation error detected: Value '[]' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1", field)
	}
	return nil
}

// partiqlError reports a translation or expression error the way PartiQL
// does: a ValidationException whose message lacks the "Invalid
// ConditionExpression: " style prefix the item API puts before expression
// errors, since the statement has no such parameter.
func partiqlError(err error) error {
	var pe *partiql.Error
	if errors.As(err, &pe) {
		return validationf("%s", pe.Msg)
	}
	var ae *apiError
	if errors.As(err, &ae) && ae.Type == errValidation {
		for _, kind := range []string{"ConditionExpression", "FilterExpression", "UpdateExpression", "ProjectionExpression", "KeyConditionExpression"} {
			if msg, ok := strings.CutPrefix(ae.Message, "Invalid "+kind+": "); ok {
				return validationf("%s", msg)
			}
		}
	}
	return err
}

// statementSource resolves the table, and index, a statement names.
func (e *Engine) statementSource(table, index string) (*table, *index, error) {
	t := e.lookup(table)
	if t == nil {
		return nil, nil, resourceNotFound()
	}
	if index == "" {
		return t, nil, nil
	}
	x := t.byName[index]
	if x == nil {
		return nil, nil, resourceNotFound()
	}
	return t, x, nil
}

// schemaOf is the key schema translation needs: the table's, or the
// index's when a SELECT reads one.
func schemaOf(t *table, x *index) partiql.Schema {
	if x != nil {
		return partiql.Schema{Hash: x.hash, Range: x.rng, HashKind: x.hashKind, RangeKind: x.rngKind}
	}
	return partiql.Schema{Hash: t.hash, Range: t.rng, HashKind: t.hashKind, RangeKind: t.rngKind}
}

// optional returns a pointer to a non-empty expression, nil for "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// runWrite runs a translated INSERT, UPDATE or DELETE as PutItem, UpdateItem
// or DeleteItem would, and returns the attributes its RETURNING asks for
// (nil when none) and the capacity it consumed. onFailure is
// ReturnValuesOnConditionCheckFailure.
func (e *Engine) runWrite(t *table, w *partiql.Write, onFailure string) (attr.Item, *capacity, error) {
	ex := newStatementExprs(w.Names, w.Values)
	var pk primaryKey
	var err error
	var upd updateFn
	switch w.Kind {
	case partiql.Put:
		if pk, err = t.keyFromItem(w.Item); err != nil {
			return nil, nil, err
		}
		if err := t.checkIndexKeys(w.Item); err != nil {
			return nil, nil, err
		}
		if err := checkItemSize(w.Item); err != nil {
			return nil, nil, err
		}
	case partiql.UpdateItem:
		if pk, err = t.keyFromKey(w.Key); err != nil {
			return nil, nil, err
		}
		if upd, err = ex.update(optional(w.Update), t); err != nil {
			return nil, nil, partiqlError(err)
		}
	default:
		if pk, err = t.keyFromKey(w.Key); err != nil {
			return nil, nil, err
		}
	}
	cond, err := ex.condition(optional(w.Condition))
	if err != nil {
		return nil, nil, partiqlError(err)
	}
	var item attr.Item
	var changed []string
	old, cc, err := e.conditionalWrite(t, pk, cond, onFailure, func(wr *writer, old attr.Item, cc *capacity) error {
		switch w.Kind {
		case partiql.Put:
			cc.addWrite(t, pk, old, w.Item, 1)
			return wr.put(t, pk, old, w.Item)
		case partiql.UpdateItem:
			var err error
			if item, changed, err = applyUpdate(t, upd, w.Key, old); err != nil {
				return err
			}
			cc.addWrite(t, pk, old, item, 1)
			return wr.put(t, pk, old, item)
		}
		cc.addWrite(t, pk, old, nil, 1)
		return wr.del(t, pk, old)
	})
	if err != nil {
		var ae *apiError
		if w.Kind == partiql.Put && errors.As(err, &ae) && ae.Type == errConditional {
			return nil, nil, duplicateItem()
		}
		return nil, nil, partiqlError(err)
	}
	switch {
	case w.Kind == partiql.UpdateItem:
		return updateReturn(w.Returning, old, item, changed), cc, nil
	case w.Kind == partiql.DeleteItem && w.Returning == "ALL_OLD":
		return old, cc, nil
	}
	return nil, cc, nil
}

// selectCursor is where a SELECT page stopped: the branch (Query) it was
// reading and the last key it read there (nil: the branch's start).
type selectCursor struct {
	branch int
	key    attr.Item
}

// selectPage is one page of a SELECT.
type selectPage struct {
	items    []byte // the items' JSON, comma separated
	readSize int    // bytes read, for capacity
	next     *selectCursor
}

// checkReadSource checks a SELECT's source: ConsistentRead is refused on a global
// index, and a global index can only return what it projects.
func checkReadSource(t *table, x *index, rd *partiql.Read, consistent bool) error {
	if x == nil {
		return nil
	}
	if x.global && consistent {
		return validationf("Strongly consistent read is not supported on Global Secondary Indexes")
	}
	if !x.global {
		return nil
	}
	var missing []string
	seen := map[string]bool{}
	for _, c := range rd.Columns {
		n := c.Path[0].Name
		if !x.projects(t, n) && !seen[n] {
			seen[n] = true
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return invalidParam("Global secondary index %s does not project [%s]", x.name, strings.Join(missing, ", "))
	}
	return nil
}

// multiQueryPage is the most items a page of a SELECT read as several
// Queries holds: "Results are returned in pages of up to 10 items. If the
// IN list contains more values, you must use the NextToken".
const multiQueryPage = 10

// runSelect reads one page of a translated SELECT from cursor from: the
// branches in order, each a Query over its key range (or one Scan), Limit
// items evaluated in all, stopping at 1 MB.
func (e *Engine) runSelect(t *table, x *index, rd *partiql.Read, from selectCursor, limit int) (*selectPage, error) {
	if len(rd.Branches) > 1 && (limit == 0 || limit > multiQueryPage) {
		limit = multiQueryPage
	}
	s := newSource(t, x)
	ex := newStatementExprs(rd.Names, rd.Values)
	var proj projFn
	fetch := false
	if rd.Columns != nil {
		cols := rd.Columns
		proj = func(it attr.Item) attr.Item { return project(it, cols) }
		if x != nil && !x.global {
			for _, c := range cols {
				fetch = fetch || !x.projects(t, c.Path[0].Name)
			}
		}
	}
	n := len(rd.Branches)
	if rd.Scan {
		n = 1
	}
	if from.branch < 0 || from.branch >= n {
		return nil, invalidNextToken()
	}
	pg := &selectPage{}
	first := true
	for bi := from.branch; bi < n; bi++ {
		o := walkOpts{forward: rd.Forward, limit: limit, proj: proj, fetch: fetch}
		filter := rd.Filter
		if !rd.Scan {
			b := rd.Branches[bi]
			filter = b.Filter
			o.lo, o.hi = s.bounds(keyCond{hash: b.Hash, op: b.SortOp, v1: b.Sort[0], v2: b.Sort[1]})
		}
		if filter != "" {
			var err error
			if _, o.filter, err = ex.filter(&filter); err != nil {
				return nil, partiqlError(err)
			}
		}
		if bi == from.branch && from.key != nil {
			sk, err := s.startKey(from.key)
			if err != nil {
				return nil, invalidNextToken()
			}
			if o.forward {
				o.lo = append(sk, 0)
			} else {
				o.hi = sk
			}
		}
		wp, err := e.walkSource(s, o)
		if err != nil {
			return nil, err
		}
		if wp.count > 0 {
			if !first {
				pg.items = append(pg.items, ',')
			}
			first = false
			if wp.rawMode {
				pg.items = append(pg.items, wp.raw...)
			} else {
				for i, it := range wp.items {
					if i > 0 {
						pg.items = append(pg.items, ',')
					}
					if pg.items, err = it.AppendJSON(pg.items); err != nil {
						return nil, err
					}
				}
			}
		}
		pg.readSize += wp.readSize
		if wp.lek != nil {
			pg.next = &selectCursor{branch: bi, key: wp.lek}
			return pg, nil
		}
		if limit > 0 {
			limit -= wp.scanned
		}
		if bi+1 < n && pg.readSize >= maxPageBytes {
			pg.next = &selectCursor{branch: bi + 1}
			return pg, nil
		}
	}
	return pg, nil
}

// walkSource walks one source in a read transaction, as Query and Scan do.
func (e *Engine) walkSource(s source, o walkOpts) (*page, error) {
	var pg *page
	err := e.db.View(func(tx kv.Tx) error {
		var err error
		pg, err = s.walk(tx, o)
		return err
	})
	return pg, err
}

// statementDigest identifies a statement and its parameters, which a
// NextToken is bound to: a token of another statement is refused.
func statementDigest(stmt string, params []attr.Value) [32]byte {
	h := sha256.New()
	h.Write([]byte(stmt))
	for _, p := range params {
		h.Write([]byte{0})
		h.Write(canonicalValue(nil, p))
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

func invalidNextToken() *apiError { return validationf("Invalid NextToken") }

// encodeNextToken packs a cursor with the digest of its statement.
func encodeNextToken(digest [32]byte, c *selectCursor) (string, error) {
	b := append([]byte(nil), digest[:]...)
	b = binary.AppendUvarint(b, uint64(c.branch))
	if c.key != nil {
		var err error
		if b, err = c.key.AppendJSON(b); err != nil {
			return "", err
		}
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// decodeNextToken unpacks a NextToken of the statement with digest.
func decodeNextToken(token string, digest [32]byte) (selectCursor, error) {
	b, err := base64.StdEncoding.DecodeString(token)
	if err != nil || len(b) <= len(digest) {
		return selectCursor{}, invalidNextToken()
	}
	if !bytes.Equal(b[:len(digest)], digest[:]) {
		return selectCursor{}, validationf("NextToken does not match request")
	}
	b = b[len(digest):]
	branch, n := binary.Uvarint(b)
	if n <= 0 || branch > maxStatementBytes {
		return selectCursor{}, invalidNextToken()
	}
	c := selectCursor{branch: int(branch)}
	if rest := b[n:]; len(rest) > 0 {
		if c.key, err = attr.UnmarshalItem(rest); err != nil {
			return selectCursor{}, invalidNextToken()
		}
	}
	return c, nil
}
