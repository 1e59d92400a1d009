package local

import (
	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
	"github.com/adjl/adjl/local/internal/kv"
)

// What Query (query.go) and Scan (scan.go) share: their request, its checks
// and the plan of the walk.

// readIn holds the request members GetItem, Query and Scan share, so they
// read and check them one way.
type readIn struct {
	TableName                string
	ConsistentRead           bool
	ProjectionExpression     *string
	ExpressionAttributeNames map[string]string
	AttributesToGet          []string
	ReturnConsumedCapacity   string

	tableNameSet bool // TableName was sent, if only as ""
}

// field reads member k into c when it is one of the shared members.
func (c *readIn) field(r *jreader, k string) error {
	var err error
	switch k {
	case "TableName":
		err = r.tableName(&c.TableName, &c.tableNameSet)
	case "ConsistentRead":
		err = r.boolInto(&c.ConsistentRead)
	case "ProjectionExpression":
		c.ProjectionExpression, err = r.optStr()
	case "ExpressionAttributeNames":
		c.ExpressionAttributeNames, err = r.names()
	case "AttributesToGet":
		c.AttributesToGet, err = r.strs()
	case "ReturnConsumedCapacity":
		c.ReturnConsumedCapacity, err = r.str()
	}
	return err
}

// constraints adds the constraints of ReturnConsumedCapacity and
// AttributesToGet to v.
func (c *readIn) constraints(v *violations) {
	v.enum("returnConsumedCapacity", c.ReturnConsumedCapacity, enumReturnConsumedCapacity)
	v.attributesToGet("attributesToGet", c.AttributesToGet)
}

type queryIn struct {
	readIn
	IndexName                 *string
	KeyConditionExpression    *string
	FilterExpression          *string
	ExpressionAttributeValues attr.Item
	Limit                     *int64
	ExclusiveStartKey         attr.Item
	ScanIndexForward          *bool
	Select                    string
	Segment                   *int64
	TotalSegments             *int64
	KeyConditions             legacyConditions
	QueryFilter               legacyConditions
	ScanFilter                legacyConditions
	ConditionalOperator       string
}

// readPlan is the part of Query and Scan that is common: which source, which
// attributes come back and how capacity is charged.
type readPlan struct {
	src     source
	proj    projFn
	filter  condFn
	count   bool
	fetch   bool
	limit   int
	wantCC  bool
	ccMode  string
	consist bool

	filterNames []string // the attributes the filter reads
}

// readConstraints adds the member constraints Query and Scan share to v
// (filter is QueryFilter or ScanFilter, named by filterMember).
func (in *queryIn) readConstraints(v *violations, filterMember string, filter legacyConditions) {
	v.minInt("limit", in.Limit, 1)
	in.readIn.constraints(v)
	v.operators(filterMember, filter, true)
	v.enum("select", in.Select, enumSelect)
	v.enum("conditionalOperator", in.ConditionalOperator, enumConditionalOperator)
}

// indexName adds the constraints of IndexName to v.
func (in *queryIn) indexName(v *violations) {
	v.tableName("tableName", in.TableName, in.tableNameSet || in.TableName != "")
	if in.IndexName != nil {
		v.name("indexName", *in.IndexName)
	}
}

// parseFilter checks the legacy filter (QueryFilter or ScanFilter) with
// ConditionalOperator, or parses FilterExpression, into the plan.
func (p *readPlan) parseFilter(in *queryIn, filter legacyConditions, ex *exprs) error {
	if err := checkConditionalOperator(in.ConditionalOperator, filter); err != nil {
		return err
	}
	cs, err := filterComparisons(filter)
	if err != nil {
		return err
	}
	var c *expr.Condition
	if len(cs) > 0 {
		c, p.filter = legacyCondFn(cs, in.ConditionalOperator)
	} else if c, p.filter, err = ex.filter(in.FilterExpression); err != nil {
		return err
	}
	if c != nil {
		p.filterNames = c.Names()
	}
	return nil
}

// resolve looks the table and index up and applies what depends on them:
// ConsistentRead on a GSI, Select, and the projection (query says which
// operation words the Select messages, as DynamoDB's differ).
func (e *Engine) resolve(p *readPlan, in *queryIn, query bool) error {
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return err
	}
	p.ccMode, p.consist = in.ReturnConsumedCapacity, in.ConsistentRead
	p.wantCC = in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES"
	if in.Limit != nil {
		p.limit = int(*in.Limit)
	}
	var x *index
	if in.IndexName != nil {
		x = t.byName[*in.IndexName]
		if x == nil {
			return validationf("The table does not have the specified index: %s", *in.IndexName)
		}
		if x.global && in.ConsistentRead {
			return validationf("Consistent reads are not supported on global secondary indexes")
		}
	}
	p.src = newSource(t, x)
	prefix := ""
	if query {
		prefix = "1 validation error detected: "
	}
	projParam := "ProjectionExpression"
	if in.AttributesToGet != nil {
		projParam = "AttributesToGet"
	}
	hasProj := in.ProjectionExpression != nil || in.AttributesToGet != nil
	switch in.Select {
	case "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "COUNT":
		chosen := in.Select
		if chosen == "COUNT" {
			chosen = "only the Count"
		}
		if hasProj {
			return validationf("%sCannot specify the %s when choosing to get %s", prefix, projParam, chosen)
		}
	case "SPECIFIC_ATTRIBUTES":
		if !hasProj {
			return validationf("%sMust specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES", prefix)
		}
	}
	switch in.Select {
	case "ALL_ATTRIBUTES":
		if x != nil && x.projType != "ALL" {
			if x.global {
				return invalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", x.name)
			}
			p.fetch = true
		}
	case "ALL_PROJECTED_ATTRIBUTES":
		if x == nil {
			return validationf("%sALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName", prefix)
		}
	case "COUNT":
		p.count = true
	}
	if p.proj != nil && x != nil && !x.global && x.projType != "ALL" {
		// An LSI fetches unprojected attributes from the table.
		p.fetch = true
	}
	return nil
}

func (p *readPlan) opts() walkOpts {
	return walkOpts{forward: true, limit: p.limit, filter: p.filter, proj: p.proj, count: p.count, fetch: p.fetch}
}

// readPage walks one page of p's source in a read transaction and answers
// with it: the last step of Query and Scan.
func (e *Engine) readPage(p *readPlan, o walkOpts) ([]byte, error) {
	var pg *page
	err := e.db.View(func(tx kv.Tx) error {
		var err error
		pg, err = p.src.walk(tx, o)
		return err
	})
	if err != nil {
		return nil, err
	}
	return p.finish(pg)
}

// finish renders a page with capacity.
func (p *readPlan) finish(pg *page) ([]byte, error) {
	var r response
	if err := appendPage(&r, pg, p.count); err != nil {
		return nil, err
	}
	if p.wantCC {
		cc := newCapacity(p.src.t)
		cc.addRead(p.src.x, pg.readSize, p.consist, 1)
		r.capacity(p.ccMode, cc)
	}
	return r.bytes(), nil
}

// maxPageBytes is DynamoDB's 1 MB limit on the data one Query or Scan reads.
const maxPageBytes = 1 << 20
