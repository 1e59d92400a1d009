package local

// What BatchGetItem (batchgetitem.go) and BatchWriteItem (batchwriteitem.go)
// share: their limits, request checks and ConsumedCapacity list.

const (
	maxBatchGet      = 100
	maxBatchWrite    = 25
	maxBatchGetBytes = 16 << 20
)

// requestItemNames records the table names of a RequestItems map that
// are not names, rendering the map as the message echoes it.
func (v *violations) requestItemNames(names []string, show func() string) {
	for _, name := range names {
		var probe violations
		if probe.name("", name); len(probe) > 0 {
			s := show()
			v.add(&s, "requestItems", "Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]")
			return
		}
	}
}

// oneParam reduces per-table parameters to one per name, set when any
// table sets it, for the mixing check across a batch's tables.
func oneParam(ps []param) []param {
	if len(ps) == 0 {
		return nil
	}
	out := param{name: ps[0].name}
	for _, p := range ps {
		out.set = out.set || p.set
	}
	return []param{out}
}

// capacitiesOf is each table's entry of byTable, in tables' order.
func capacitiesOf(tables []*table, byTable map[string]*capacity) []*capacity {
	ccs := make([]*capacity, 0, len(tables))
	for _, t := range tables {
		ccs = append(ccs, byTable[t.name])
	}
	return ccs
}

func appendCapacities(r *response, mode string, ccs []*capacity) {
	r.field("ConsumedCapacity")
	r.b = append(r.b, '[')
	for i, cc := range ccs {
		if i > 0 {
			r.b = append(r.b, ',')
		}
		r.b = cc.appendJSON(r.b, mode)
	}
	r.b = append(r.b, ']')
}
