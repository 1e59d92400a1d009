package local

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/kv"
)

// Top-level buckets. Table data lives in "d/<table>", each index in
// "x/<table>/<index>", descriptions in meta, item counts in stats and
// TransactWriteItems' ClientRequestTokens in tokens. (The store keeps its
// own records in "version" and "wal", names no table bucket can have.)
var (
	metaBucket   = []byte("meta")
	statsBucket  = []byte("stats")
	tokensBucket = []byte("tokens")
)

const (
	region  = "us-east-1"
	account = "000000000000"
)

func dataBucketName(tableName string) []byte { return []byte("d/" + tableName) }

func indexBucketName(tableName, indexName string) []byte {
	return []byte("x/" + tableName + "/" + indexName)
}

func tableArn(name string) string {
	return "arn:aws:dynamodb:" + region + ":" + account + ":table/" + name
}

// load creates the fixed buckets (on a new file: a current one is opened
// without a write, so a read-only command never syncs) and reads every
// table description into the in-memory cache.
func (e *Engine) load() error {
	fixed := [][]byte{metaBucket, statsBucket, tokensBucket}
	missing := false
	e.db.View(func(tx kv.Tx) error {
		for _, name := range fixed {
			missing = missing || tx.Bucket(name) == nil
		}
		return nil
	})
	if missing {
		err := e.db.Update(func(tx kv.Tx) error {
			for _, name := range fixed {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return fmt.Errorf("create bucket %s: %w", name, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return e.db.View(func(tx kv.Tx) error {
		return tx.Bucket(metaBucket).ForEach(func(k, v []byte) error {
			var st storedTable
			if err := json.Unmarshal(v, &st); err != nil {
				return fmt.Errorf("read description of table %s: %w", k, err)
			}
			t, err := newTable(st)
			if err != nil {
				return fmt.Errorf("read description of table %s: %w", k, err)
			}
			e.tables[t.name] = t
			return nil
		})
	})
}

// newTable derives the ready-to-use form of a stored description.
func newTable(st storedTable) (*table, error) {
	d := &st.Desc
	t := &table{stored: st, name: d.TableName, defs: map[string]attr.Kind{}, byName: map[string]*index{}}
	for _, ad := range d.AttributeDefinitions {
		t.defs[ad.AttributeName] = attr.KindOf(ad.AttributeType)
	}
	t.hash, t.rng = splitKeySchema(d.KeySchema)
	t.hashKind, t.rngKind = t.defs[t.hash], t.defs[t.rng]
	t.bucket = dataBucketName(t.name)
	add := func(xd indexDesc, global bool) {
		x := &index{name: xd.IndexName, global: global, projType: xd.Projection.ProjectionType}
		x.hash, x.rng = splitKeySchema(xd.KeySchema)
		x.hashKind, x.rngKind = t.defs[x.hash], t.defs[x.rng]
		if len(xd.Projection.NonKeyAttributes) > 0 {
			x.include = map[string]bool{}
			for _, a := range xd.Projection.NonKeyAttributes {
				x.include[a] = true
			}
		}
		x.bucket = indexBucketName(t.name, x.name)
		t.indexes = append(t.indexes, x)
		t.byName[x.name] = x
	}
	for _, xd := range d.LocalSecondaryIndexes {
		add(xd, false)
	}
	for _, xd := range d.GlobalSecondaryIndexes {
		add(xd, true)
	}
	if t.hash == "" || t.hashKind == attr.Invalid {
		return nil, fmt.Errorf("table %s has no valid hash key", t.name)
	}
	return t, nil
}

func splitKeySchema(ks []keySchemaElement) (hash, rng string) {
	for _, k := range ks {
		switch k.KeyType {
		case "HASH":
			hash = k.AttributeName
		case "RANGE":
			rng = k.AttributeName
		}
	}
	return hash, rng
}

// lookup returns the cached table or nil.
func (e *Engine) lookup(name string) *table {
	e.mu.RLock()
	t := e.tables[name]
	e.mu.RUnlock()
	return t
}

// setTable installs (t != nil) or removes a cache entry. DDL calls it inside
// its write transaction, so no writer can start between the commit and the
// cache change and miss a new index. e.mu is never held while waiting for
// the bbolt writer lock, which keeps the two locks free of deadlock.
func (e *Engine) setTable(name string, t *table) {
	e.mu.Lock()
	if t == nil {
		delete(e.tables, name)
	} else {
		e.tables[name] = t
	}
	e.mu.Unlock()
}

// resync reloads the cache from the file after a failed DDL commit.
func (e *Engine) resync() {
	fresh := map[string]*table{}
	e.db.View(func(tx kv.Tx) error {
		return tx.Bucket(metaBucket).ForEach(func(k, v []byte) error {
			var st storedTable
			if json.Unmarshal(v, &st) == nil {
				if t, err := newTable(st); err == nil {
					fresh[t.name] = t
				}
			}
			return nil
		})
	})
	e.mu.Lock()
	e.tables = fresh
	e.mu.Unlock()
}

// alterTable applies change to a copy of table name's description inside one
// write transaction, persists it and installs the new cached form.
func (e *Engine) alterTable(name string, change func(tx kv.Tx, t *table, st *storedTable) error) (*table, error) {
	var nt *table
	err := e.updateCatalog(func(tx kv.Tx) error {
		t := e.lookup(name)
		if t == nil {
			return tableNotFound(name)
		}
		st := t.stored
		st.Tags = append([]tag(nil), st.Tags...)
		d := &st.Desc
		d.GlobalSecondaryIndexes = append([]indexDesc(nil), d.GlobalSecondaryIndexes...)
		d.AttributeDefinitions = append([]attributeDefinition(nil), d.AttributeDefinitions...)
		if d.ProvisionedThroughput != nil {
			pt := *d.ProvisionedThroughput
			d.ProvisionedThroughput = &pt
		}
		if d.BillingModeSummary != nil {
			bs := *d.BillingModeSummary
			d.BillingModeSummary = &bs
		}
		if err := change(tx, t, &st); err != nil {
			return err
		}
		var err error
		if nt, err = newTable(st); err != nil {
			return err
		}
		if err := putTable(tx, &st); err != nil {
			return err
		}
		e.setTable(name, nt)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nt, nil
}

// updateCatalog runs a DDL change (CreateTable, DeleteTable, alterTable) in
// one write transaction. The change installs its cache entry inside it;
// when the commit then fails for a reason of the store's (not an apiError
// the change returned), the cache is reloaded from the file.
func (e *Engine) updateCatalog(fn func(tx kv.Tx) error) error {
	err := e.db.Update(fn)
	if err != nil {
		if _, ok := err.(*apiError); !ok {
			e.resync()
		}
	}
	return err
}

// putTable persists a description inside tx; the caller installs the cache
// entry (setTable) in the same transaction.
func putTable(tx kv.Tx, st *storedTable) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode table description: %w", err)
	}
	return tx.Bucket(metaBucket).Put([]byte(st.Desc.TableName), b)
}

// counts is an item count and total size, kept per table and per index.
type counts struct{ items, bytes int64 }

func statsKey(tableName, indexName string) []byte {
	if indexName == "" {
		return []byte(tableName)
	}
	return []byte(tableName + "\x00" + indexName)
}

func readCounts(tx kv.Tx, key []byte) counts {
	v := tx.Bucket(statsBucket).Get(key)
	if len(v) != 16 {
		return counts{}
	}
	return counts{int64(binary.BigEndian.Uint64(v)), int64(binary.BigEndian.Uint64(v[8:]))}
}

func addCounts(tx kv.Tx, key []byte, d counts) error {
	if d == (counts{}) {
		return nil
	}
	c := readCounts(tx, key)
	c.items += d.items
	c.bytes += d.bytes
	var v [16]byte
	binary.BigEndian.PutUint64(v[:], uint64(c.items))
	binary.BigEndian.PutUint64(v[8:], uint64(c.bytes))
	return tx.Bucket(statsBucket).Put(key, v[:])
}

// describe returns the table's description with live counts.
func (e *Engine) describe(tx kv.Tx, t *table) tableDesc {
	d := t.stored.Desc
	c := readCounts(tx, statsKey(t.name, ""))
	d.ItemCount, d.TableSizeBytes = c.items, c.bytes
	fill := func(xs []indexDesc) []indexDesc {
		if xs == nil {
			return nil
		}
		out := make([]indexDesc, len(xs))
		for i, x := range xs {
			c := readCounts(tx, statsKey(t.name, x.IndexName))
			x.ItemCount, x.IndexSizeBytes = c.items, c.bytes
			out[i] = x
		}
		return out
	}
	d.GlobalSecondaryIndexes = fill(d.GlobalSecondaryIndexes)
	d.LocalSecondaryIndexes = fill(d.LocalSecondaryIndexes)
	return d
}

// tableNames returns the sorted names of all tables.
func (e *Engine) tableNames() []string {
	e.mu.RLock()
	names := make([]string, 0, len(e.tables))
	for n := range e.tables {
		names = append(names, n)
	}
	e.mu.RUnlock()
	sort.Strings(names)
	return names
}

// tableFor resolves a data-plane request's TableName, a table name or a
// table ARN, once the request's constraints have been checked.
func (e *Engine) tableFor(name string) (*table, error) {
	if name == "" {
		return nil, validationf("1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null")
	}
	if arn, ok := strings.CutPrefix(name, "arn:"); ok {
		// arn:aws:dynamodb:<region>:<account>:table/<name>
		parts := strings.SplitN(arn, ":", 5)
		if len(parts) != 5 || parts[1] != "dynamodb" || parts[2] != region || parts[3] != account {
			return nil, resourceNotFound()
		}
		tn, ok := strings.CutPrefix(parts[4], "table/")
		if !ok || strings.Contains(tn, "/") {
			return nil, resourceNotFound()
		}
		name = tn
	}
	if t := e.lookup(name); t != nil {
		return t, nil
	}
	if err := checkTableName("tableName", name); err != nil {
		return nil, err
	}
	return nil, resourceNotFound()
}
