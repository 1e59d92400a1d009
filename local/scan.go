package local

// scan is Scan: the whole table or index in key order, or one segment of a
// parallel scan, one page at a time, filtered by FilterExpression or the
// legacy ScanFilter.
func (e *Engine) scan(in *queryIn) ([]byte, error) {
	if in.KeyConditionExpression != nil || in.KeyConditions != nil || in.ScanIndexForward != nil || in.QueryFilter != nil {
		return nil, &apiError{Type: errSerialization, Message: "KeyConditionExpression, KeyConditions, QueryFilter and ScanIndexForward are not Scan parameters"}
	}
	var v violations
	in.readConstraints(&v, "scanFilter", in.ScanFilter)
	v.minInt("totalSegments", in.TotalSegments, 1)
	v.maxInt("totalSegments", in.TotalSegments, 1000000)
	v.minInt("segment", in.Segment, 0)
	in.indexName(&v)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := checkMixing(
		[]param{{"AttributesToGet", in.AttributesToGet != nil}, {"ScanFilter", in.ScanFilter != nil}, {"ConditionalOperator", in.ConditionalOperator != ""}},
		[]param{{"ProjectionExpression", in.ProjectionExpression != nil}, {"FilterExpression", in.FilterExpression != nil}},
		in.ExpressionAttributeNames, in.ExpressionAttributeValues, false); err != nil {
		return nil, err
	}
	ex := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	p := &readPlan{}
	if err := p.parseFilter(in, in.ScanFilter, ex); err != nil {
		return nil, err
	}
	switch {
	case in.TotalSegments != nil && in.Segment == nil:
		return nil, validationf("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, validationf("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment != nil && *in.Segment >= *in.TotalSegments:
		return nil, validationf("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *in.Segment, *in.TotalSegments)
	}
	var err error
	if p.proj, err = ex.projection(in.ProjectionExpression, in.AttributesToGet); err != nil {
		return nil, err
	}
	if err := ex.checkUnused(); err != nil {
		return nil, err
	}
	if err := e.resolve(p, in, false); err != nil {
		return nil, err
	}
	o := p.opts()
	if total := in.TotalSegments; total != nil && *total > 1 {
		o.segment = segmentOf(p.src.t, *total, *in.Segment)
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
