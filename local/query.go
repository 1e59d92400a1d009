package local

import (
	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"

	"github.com/adjl/adjl/local/internal/kv"
)

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

	filterExpr *expr.Condition
}

// plan validates IndexName, Select, ProjectionExpression, FilterExpression,
// Limit and ConsistentRead, shared by Query and Scan.
func (e *Engine) plan(in *queryIn, ex *exprs) (*readPlan, error) {
	t, err := e.tableFor(in.TableName)
	if err != nil {
		return nil, err
	}
	p := &readPlan{ccMode: in.ReturnConsumedCapacity, consist: in.ConsistentRead}
	if p.wantCC, err = wantCapacity(in.ReturnConsumedCapacity); err != nil {
		return nil, err
	}
	var x *index
	if in.IndexName != nil {
		if err := checkTableName("indexName", *in.IndexName); err != nil {
			return nil, err
		}
		x = t.byName[*in.IndexName]
		if x == nil {
			return nil, validationf("The table does not have the specified index: %s", *in.IndexName)
		}
		if x.global && in.ConsistentRead {
			return nil, validationf("Consistent reads are not supported on global secondary indexes")
		}
	}
	p.src = newSource(t, x)
	if in.Limit != nil {
		if *in.Limit < 1 {
			return nil, validationf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit)
		}
		p.limit = int(*in.Limit)
	}
	hasProj := in.ProjectionExpression != nil || in.AttributesToGet != nil
	switch in.Select {
	case "":
	case "ALL_ATTRIBUTES":
		if hasProj {
			return nil, validationf("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES")
		}
		if x != nil && x.projType != "ALL" {
			if x.global {
				return nil, invalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", x.name)
			}
			p.fetch = true
		}
	case "ALL_PROJECTED_ATTRIBUTES":
		if x == nil {
			return nil, invalidParam("Select type ALL_PROJECTED_ATTRIBUTES is not supported for table %s", t.name)
		}
		if hasProj {
			return nil, validationf("Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
	case "SPECIFIC_ATTRIBUTES":
		if !hasProj {
			return nil, validationf("1 validation error detected: Value null at 'projectionExpression' failed to satisfy constraint: Member must not be null when select is SPECIFIC_ATTRIBUTES")
		}
	case "COUNT":
		if hasProj {
			return nil, validationf("Cannot specify the ProjectionExpression when choosing to get COUNT")
		}
		p.count = true
	default:
		return nil, validationf("1 validation error detected: Value '%s' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]", in.Select)
	}
	if p.proj, err = ex.projection(in.ProjectionExpression, in.AttributesToGet); err != nil {
		return nil, err
	}
	if p.proj != nil && x != nil && !x.global && x.projType != "ALL" {
		// An LSI fetches unprojected attributes from the table.
		p.fetch = true
	}
	if p.filterExpr, p.filter, err = ex.filter(in.FilterExpression); err != nil {
		return nil, err
	}
	return p, nil
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

// query is Query: one partition of the table or of an index, in sort key
// order, one page (Limit, 1 MB) at a time.
func (e *Engine) query(body []byte) ([]byte, error) {
	var in queryIn
	if err := decodeQuery(body, &in); err != nil {
		return nil, err
	}
	if err := legacyParams("KeyConditions", in.KeyConditions, "QueryFilter", in.QueryFilter, "ConditionalOperator", in.ConditionalOperator); err != nil {
		return nil, err
	}
	if in.Segment != nil || in.TotalSegments != nil || in.ScanFilter != nil {
		return nil, &apiError{Type: errSerialization, Message: "Segment, TotalSegments and ScanFilter are not Query parameters"}
	}
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	p, err := e.plan(&in, ex)
	if err != nil {
		return nil, err
	}
	if in.KeyConditionExpression == nil {
		return nil, validationf("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	kc, err := ex.keyCondition(*in.KeyConditionExpression, p.src)
	if err != nil {
		return nil, err
	}
	if p.filterExpr != nil {
		for _, n := range p.filterExpr.Names() {
			if n == p.src.hash || n == p.src.rng {
				return nil, validationf("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", n)
			}
		}
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	o := p.opts()
	o.lo, o.hi = p.src.bounds(kc)
	if in.ScanIndexForward != nil && !*in.ScanIndexForward {
		o.forward = false
	}
	if in.ExclusiveStartKey != nil {
		sk, err := p.src.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if string(sk) < string(o.lo) || o.hi != nil && string(sk) >= string(o.hi) {
			return nil, validationf("The provided starting key is outside query boundaries based on provided conditions")
		}
		if o.forward {
			o.lo = append(sk, 0)
		} else {
			o.hi = sk
		}
	}
	return e.readPage(p, o)
}

// scan is Scan: the whole table or index in key order, or one segment of a
// parallel scan, one page at a time.
func (e *Engine) scan(body []byte) ([]byte, error) {
	var in queryIn
	if err := decodeQuery(body, &in); err != nil {
		return nil, err
	}
	if err := legacyParams("ScanFilter", in.ScanFilter, "ConditionalOperator", in.ConditionalOperator); err != nil {
		return nil, err
	}
	if in.KeyConditionExpression != nil || in.KeyConditions != nil || in.ScanIndexForward != nil || in.QueryFilter != nil {
		return nil, &apiError{Type: errSerialization, Message: "KeyConditionExpression, KeyConditions, QueryFilter and ScanIndexForward are not Scan parameters"}
	}
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	p, err := e.plan(&in, ex)
	if err != nil {
		return nil, err
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	o := p.opts()
	switch {
	case in.TotalSegments != nil && in.Segment == nil:
		return nil, validationf("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, validationf("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.TotalSegments != nil:
		total, seg := *in.TotalSegments, *in.Segment
		if total < 1 || total > 1000000 {
			return nil, validationf("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000", total)
		}
		if seg < 0 || seg >= total {
			return nil, validationf("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", seg, total)
		}
		if total > 1 {
			o.segment = segmentOf(p.src.t, total, seg)
		}
	}
	if in.ExclusiveStartKey != nil {
		sk, err := p.src.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		o.lo = append(sk, 0)
	}
	return e.readPage(p, o)
}

// maxPageBytes is DynamoDB's 1 MB limit on the data one Query or Scan reads.
const maxPageBytes = 1 << 20

type queryIn struct {
	TableName                 string
	IndexName                 *string
	KeyConditionExpression    *string
	FilterExpression          *string
	ProjectionExpression      *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues attr.Item
	Limit                     *int64
	ExclusiveStartKey         attr.Item
	ScanIndexForward          *bool
	Select                    string
	ConsistentRead            bool
	ReturnConsumedCapacity    string
	Segment                   *int64
	TotalSegments             *int64
	KeyConditions             map[string]any
	QueryFilter               map[string]any
	ScanFilter                map[string]any
	AttributesToGet           []string
	ConditionalOperator       string
}
