package local

import (
	"sort"
	"strconv"

	"github.com/adjl/adjl/local/internal/attr"
)

// capacity accumulates the capacity units one request consumes on one table,
// the way DynamoDB bills it: reads in 4 KB units (halved when eventually
// consistent), writes in 1 KB units, transactions doubled.
type capacity struct {
	table string
	read  float64
	write float64
	idx   map[string]*idxUnits // per index
	gsi   map[string]bool      // index name -> global
}

type idxUnits struct{ read, write float64 }

func newCapacity(t *table) *capacity { return &capacity{table: t.name} }

// readUnits is the RCU cost of reading size bytes in one operation.
func readUnits(size int, consistent bool) float64 {
	u := float64((size + 4095) / 4096)
	if u == 0 {
		u = 1
	}
	if !consistent {
		u /= 2
	}
	return u
}

// writeUnits is the WCU cost of writing an item of size bytes.
func writeUnits(size int) float64 {
	u := float64((size + 1023) / 1024)
	if u == 0 {
		u = 1
	}
	return u
}

func (c *capacity) index(x *index) *idxUnits {
	if c.idx == nil {
		c.idx = map[string]*idxUnits{}
		c.gsi = map[string]bool{}
	}
	u := c.idx[x.name]
	if u == nil {
		u = &idxUnits{}
		c.idx[x.name] = u
		c.gsi[x.name] = x.global
	}
	return u
}

// addWrite charges a write of pk changing old into item (either may be nil),
// including the index writes it causes.
func (c *capacity) addWrite(t *table, pk primaryKey, old, item attr.Item, mult float64) {
	size := 0
	if old != nil {
		size = attr.ItemSize(old)
	}
	if item != nil {
		if n := attr.ItemSize(item); n > size {
			size = n
		}
	}
	c.write += writeUnits(size) * mult
	for _, x := range t.indexes {
		var ok, nk []byte
		if old != nil {
			ok = x.indexKey(nil, old, pk.enc)
		}
		if item != nil {
			nk = x.indexKey(nil, item, pk.enc)
		}
		if ok == nil && nk == nil {
			continue
		}
		u := c.index(x)
		switch {
		case ok != nil && nk != nil && string(ok) == string(nk):
			if !projectionChanged(t, x, old, item) {
				continue
			}
			u.write += writeUnits(x.projectedSize(t, item)) * mult
		default:
			if ok != nil {
				u.write += writeUnits(x.projectedSize(t, old)) * mult
			}
			if nk != nil {
				u.write += writeUnits(x.projectedSize(t, item)) * mult
			}
		}
	}
}

// addFailedWrite charges a write refused by its condition: DynamoDB bills
// the table write (at least one unit) but no index writes.
func (c *capacity) addFailedWrite(old attr.Item) {
	size := 0
	if old != nil {
		size = attr.ItemSize(old)
	}
	c.write += writeUnits(size)
}

// projectionChanged reports whether an update changed any attribute the
// index stores (DynamoDB charges no index write otherwise).
func projectionChanged(t *table, x *index, old, item attr.Item) bool {
	for k, v := range item {
		if !x.projects(t, k) {
			continue
		}
		ov, ok := old[k]
		if !ok || !attr.Equal(ov, v) {
			return true
		}
	}
	for k := range old {
		if _, ok := item[k]; !ok && x.projects(t, k) {
			return true
		}
	}
	return false
}

// addRead charges reading size bytes from the table (x == nil) or an index.
func (c *capacity) addRead(x *index, size int, consistent bool, mult float64) {
	u := readUnits(size, consistent) * mult
	if x == nil {
		c.read += u
		return
	}
	c.index(x).read += u
}

// appendJSON appends the ConsumedCapacity object for mode TOTAL or INDEXES.
func (c *capacity) appendJSON(b []byte, mode string) []byte {
	total := c.read + c.write
	for _, u := range c.idx {
		total += u.read + u.write
	}
	b = append(b, `{"TableName":`...)
	b = attr.AppendJSONString(b, c.table)
	b = append(b, `,"CapacityUnits":`...)
	b = appendFloat(b, total)
	b = appendRW(b, c.read+sumIdx(c.idx, true), c.write+sumIdx(c.idx, false))
	if mode == "INDEXES" {
		b = append(b, `,"Table":{"CapacityUnits":`...)
		b = appendFloat(b, c.read+c.write)
		b = appendRW(b, c.read, c.write)
		b = append(b, '}')
		for _, global := range []bool{true, false} {
			names := make([]string, 0, len(c.idx))
			for n := range c.idx {
				if c.gsi[n] == global {
					names = append(names, n)
				}
			}
			if len(names) == 0 {
				continue
			}
			sort.Strings(names)
			if global {
				b = append(b, `,"GlobalSecondaryIndexes":{`...)
			} else {
				b = append(b, `,"LocalSecondaryIndexes":{`...)
			}
			for i, n := range names {
				if i > 0 {
					b = append(b, ',')
				}
				u := c.idx[n]
				b = attr.AppendJSONString(b, n)
				b = append(b, `:{"CapacityUnits":`...)
				b = appendFloat(b, u.read+u.write)
				b = appendRW(b, u.read, u.write)
				b = append(b, '}')
			}
			b = append(b, '}')
		}
	}
	return append(b, '}')
}

func sumIdx(m map[string]*idxUnits, read bool) float64 {
	s := 0.0
	for _, u := range m {
		if read {
			s += u.read
		} else {
			s += u.write
		}
	}
	return s
}

func appendRW(b []byte, r, w float64) []byte {
	if r > 0 {
		b = append(b, `,"ReadCapacityUnits":`...)
		b = appendFloat(b, r)
	}
	if w > 0 {
		b = append(b, `,"WriteCapacityUnits":`...)
		b = appendFloat(b, w)
	}
	return b
}

func appendFloat(b []byte, f float64) []byte {
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	if f == float64(int64(f)) {
		b = append(b, ".0"...)
	}
	return b
}

// wantCapacity validates ReturnConsumedCapacity and reports whether to send it.
func wantCapacity(mode string) (bool, error) {
	switch mode {
	case "", "NONE":
		return false, nil
	case "TOTAL", "INDEXES":
		return true, nil
	}
	return false, validationf("1 validation error detected: Value '%s' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]", mode)
}
