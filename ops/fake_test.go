package ops

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// call is one request the fake received.
type call struct {
	Op    string
	Input any
}

// memAPI is an in-memory stand-in for DynamoDB that implements the subset of
// expression syntax adjl's builders produce (=, <>, begins_with,
// attribute_exists/not_exists, AND/OR, SET/ADD with if_not_exists), Query
// with Limit/ExclusiveStartKey/filters on the table and the index, and
// transactions. It records every call, and tests may inject errors.
type memAPI struct {
	mu     sync.Mutex
	items  map[[2]string]Item
	calls  []call
	table  *types.TableDescription
	inject func(op string, in any) error // non-nil error is returned instead
}

func newMem() *memAPI { return &memAPI{items: map[[2]string]Item{}} }

func (m *memAPI) record(op string, in any) error {
	m.mu.Lock()
	m.calls = append(m.calls, call{op, in})
	inject := m.inject
	m.mu.Unlock()
	if inject != nil {
		return inject(op, in)
	}
	return nil
}

// ops lists the operation names received, in order.
func (m *memAPI) ops() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.calls))
	for i, c := range m.calls {
		out[i] = c.Op
	}
	return out
}

func (m *memAPI) reset() {
	m.mu.Lock()
	m.calls = nil
	m.mu.Unlock()
}

func (m *memAPI) put(it Item) { m.items[[2]string{sOf(it, "PK"), sOf(it, "SK")}] = it }

func (m *memAPI) get(pk, sk string) Item { return m.items[[2]string{pk, sk}] }

func keyPair(k Item) [2]string { return [2]string{sOf(k, "PK"), sOf(k, "SK")} }

func cc(rc types.ReturnConsumedCapacity) *types.ConsumedCapacity {
	if rc != types.ReturnConsumedCapacityTotal {
		return nil
	}
	return &types.ConsumedCapacity{TableName: aws.String("t"), CapacityUnits: aws.Float64(1)}
}

func ccf() error {
	return &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
}

func (m *memAPI) CreateTable(_ context.Context, in *dynamodb.CreateTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	if err := m.record("CreateTable", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.table != nil {
		return nil, &types.ResourceInUseException{Message: aws.String("exists")}
	}
	d := &types.TableDescription{TableName: in.TableName, KeySchema: in.KeySchema, AttributeDefinitions: in.AttributeDefinitions,
		TableStatus: types.TableStatusCreating, BillingModeSummary: &types.BillingModeSummary{BillingMode: in.BillingMode}}
	for _, g := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection, IndexStatus: types.IndexStatusCreating})
	}
	m.table = d
	return &dynamodb.CreateTableOutput{TableDescription: d}, nil
}

func (m *memAPI) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	if err := m.record("DescribeTable", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.table == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
	}
	d := *m.table
	d.GlobalSecondaryIndexes = slices.Clone(d.GlobalSecondaryIndexes)
	// Each describe moves a creating table one step towards ACTIVE.
	switch {
	case m.table.TableStatus == types.TableStatusCreating:
		m.table.TableStatus = types.TableStatusActive
	case len(m.table.GlobalSecondaryIndexes) > 0 && m.table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusCreating:
		m.table.GlobalSecondaryIndexes[0].IndexStatus = types.IndexStatusActive
	case m.table.TableStatus == types.TableStatusDeleting:
		m.table = nil
	}
	return &dynamodb.DescribeTableOutput{Table: &d}, nil
}

func (m *memAPI) DeleteTable(_ context.Context, in *dynamodb.DeleteTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	if err := m.record("DeleteTable", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.table == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
	}
	m.table.TableStatus = types.TableStatusDeleting
	return &dynamodb.DeleteTableOutput{}, nil
}

func (m *memAPI) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := m.record("PutItem", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.get(sOf(in.Item, "PK"), sOf(in.Item, "SK"))
	if !evalCond(aws.ToString(in.ConditionExpression), old, in.ExpressionAttributeNames, in.ExpressionAttributeValues) {
		return nil, ccf()
	}
	m.put(clone(in.Item))
	return &dynamodb.PutItemOutput{ConsumedCapacity: cc(in.ReturnConsumedCapacity)}, nil
}

func (m *memAPI) GetItem(_ context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := m.record("GetItem", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return &dynamodb.GetItemOutput{Item: clone(m.items[keyPair(in.Key)]), ConsumedCapacity: cc(in.ReturnConsumedCapacity)}, nil
}

func (m *memAPI) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := m.record("UpdateItem", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.items[keyPair(in.Key)]
	if !evalCond(aws.ToString(in.ConditionExpression), old, in.ExpressionAttributeNames, in.ExpressionAttributeValues) {
		return nil, ccf()
	}
	nu, changed := applyUpdate(old, in.Key, aws.ToString(in.UpdateExpression), in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	m.items[keyPair(in.Key)] = nu
	out := &dynamodb.UpdateItemOutput{ConsumedCapacity: cc(in.ReturnConsumedCapacity)}
	switch in.ReturnValues {
	case types.ReturnValueAllOld:
		out.Attributes = clone(old)
	case types.ReturnValueUpdatedOld:
		out.Attributes = Item{}
		for _, n := range changed {
			if v, ok := old[n]; ok {
				out.Attributes[n] = v
			}
		}
	}
	return out, nil
}

func (m *memAPI) DeleteItem(_ context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := m.record("DeleteItem", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.items[keyPair(in.Key)]
	if !evalCond(aws.ToString(in.ConditionExpression), old, in.ExpressionAttributeNames, in.ExpressionAttributeValues) {
		return nil, ccf()
	}
	delete(m.items, keyPair(in.Key))
	out := &dynamodb.DeleteItemOutput{ConsumedCapacity: cc(in.ReturnConsumedCapacity)}
	if in.ReturnValues == types.ReturnValueAllOld {
		out.Attributes = old
	}
	return out, nil
}

func (m *memAPI) TransactWriteItems(_ context.Context, in *dynamodb.TransactWriteItemsInput, _ ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := m.record("TransactWriteItems", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	reasons := make([]types.CancellationReason, len(in.TransactItems))
	failed := false
	seen := map[[2]string]bool{}
	for i, ti := range in.TransactItems {
		var key Item
		var cond *string
		var names map[string]string
		var values map[string]types.AttributeValue
		switch {
		case ti.Put != nil:
			key, cond, names, values = ti.Put.Item, ti.Put.ConditionExpression, ti.Put.ExpressionAttributeNames, ti.Put.ExpressionAttributeValues
		case ti.Update != nil:
			key, cond, names, values = ti.Update.Key, ti.Update.ConditionExpression, ti.Update.ExpressionAttributeNames, ti.Update.ExpressionAttributeValues
		case ti.Delete != nil:
			key, cond, names, values = ti.Delete.Key, ti.Delete.ConditionExpression, ti.Delete.ExpressionAttributeNames, ti.Delete.ExpressionAttributeValues
		}
		if seen[keyPair(key)] {
			return nil, fmt.Errorf("ValidationException: Transaction request cannot include multiple operations on one item")
		}
		seen[keyPair(key)] = true
		reasons[i].Code = aws.String("None")
		if !evalCond(aws.ToString(cond), m.items[keyPair(key)], names, values) {
			reasons[i].Code = aws.String("ConditionalCheckFailed")
			failed = true
		}
	}
	if failed {
		return nil, &types.TransactionCanceledException{Message: aws.String("Transaction cancelled"), CancellationReasons: reasons}
	}
	for _, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			m.put(clone(ti.Put.Item))
		case ti.Update != nil:
			nu, _ := applyUpdate(m.items[keyPair(ti.Update.Key)], ti.Update.Key, aws.ToString(ti.Update.UpdateExpression), ti.Update.ExpressionAttributeNames, ti.Update.ExpressionAttributeValues)
			m.items[keyPair(ti.Update.Key)] = nu
		case ti.Delete != nil:
			delete(m.items, keyPair(ti.Delete.Key))
		}
	}
	out := &dynamodb.TransactWriteItemsOutput{}
	if c := cc(in.ReturnConsumedCapacity); c != nil {
		out.ConsumedCapacity = []types.ConsumedCapacity{*c}
	}
	return out, nil
}

func (m *memAPI) BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return nil, errors.New("BatchGetItem not supported by the fake")
}

func (m *memAPI) BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, errors.New("BatchWriteItem not supported by the fake")
}

// Query evaluates the key condition over the table or the index, in key
// order, honours ExclusiveStartKey and Limit (counted before the filter, and
// a LastEvaluatedKey whenever the limit is reached, as DynamoDB does).
func (m *memAPI) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := m.record("Query", in); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	pk, sk := "PK", "SK"
	if in.IndexName != nil {
		pk, sk = "GSI1PK", "GSI1SK"
	}
	var rows []Item
	for _, it := range m.items {
		if _, ok := it[pk]; !ok {
			continue
		}
		if _, ok := it[sk]; !ok {
			continue
		}
		if evalCond(aws.ToString(in.KeyConditionExpression), it, in.ExpressionAttributeNames, in.ExpressionAttributeValues) {
			rows = append(rows, it)
		}
	}
	order := func(it Item) []string { return []string{sOf(it, sk), sOf(it, "PK"), sOf(it, "SK")} }
	dir := 1 // ScanIndexForward false: descending, ExclusiveStartKey counts from the other end
	if in.ScanIndexForward != nil && !*in.ScanIndexForward {
		dir = -1
	}
	sort.Slice(rows, func(i, j int) bool { return dir*slices.Compare(order(rows[i]), order(rows[j])) < 0 })
	if in.ExclusiveStartKey != nil {
		start := order(in.ExclusiveStartKey)
		i := sort.Search(len(rows), func(i int) bool { return dir*slices.Compare(order(rows[i]), start) > 0 })
		rows = rows[i:]
	}
	out := &dynamodb.QueryOutput{ConsumedCapacity: cc(in.ReturnConsumedCapacity)}
	if in.Limit != nil && int(*in.Limit) <= len(rows) {
		rows = rows[:*in.Limit]
		last := rows[len(rows)-1]
		out.LastEvaluatedKey = Item{"PK": last["PK"], "SK": last["SK"]}
		if in.IndexName != nil {
			out.LastEvaluatedKey["GSI1PK"], out.LastEvaluatedKey["GSI1SK"] = last["GSI1PK"], last["GSI1SK"]
		}
	}
	for _, it := range rows {
		if in.FilterExpression == nil || evalCond(*in.FilterExpression, it, in.ExpressionAttributeNames, in.ExpressionAttributeValues) {
			out.Items = append(out.Items, clone(it))
		}
	}
	out.Count = int32(len(out.Items))
	return out, nil
}

func clone(it Item) Item {
	if it == nil {
		return nil
	}
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = v
	}
	return out
}

// evalCond evaluates the condition grammar adjl's builders emit. An empty
// condition is true.
func evalCond(expr string, it Item, names map[string]string, values map[string]types.AttributeValue) bool {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return true
	}
	if l, op, r, ok := splitTop(expr); ok {
		a, b := evalCond(l, it, names, values), evalCond(r, it, names, values)
		if op == "AND" {
			return a && b
		}
		return a || b
	}
	if strings.HasPrefix(expr, "(") && strings.HasSuffix(expr, ")") && matching(expr) {
		return evalCond(expr[1:len(expr)-1], it, names, values)
	}
	if m := reFunc.FindStringSubmatch(expr); m != nil {
		v, ok := lookup(it, m[2], names)
		switch m[1] {
		case "attribute_exists":
			return ok
		case "attribute_not_exists":
			return !ok
		case "begins_with":
			return ok && strings.HasPrefix(sOf(Item{"x": v}, "x"), sOf(Item{"x": values[m[3]]}, "x"))
		}
	}
	if m := reCmp.FindStringSubmatch(expr); m != nil {
		v, ok := it[names[m[1]]]
		eq := ok && sameValue(v, values[m[3]])
		if m[2] == "=" {
			return eq
		}
		return !eq
	}
	if m := reIn.FindStringSubmatch(expr); m != nil {
		v, ok := it[names[m[1]]]
		for _, ph := range strings.Split(m[2], ", ") {
			if ok && sameValue(v, values[ph]) {
				return true
			}
		}
		return false
	}
	panic("fake: unsupported expression " + expr)
}

var (
	reFunc = regexp.MustCompile(`^(attribute_exists|attribute_not_exists|begins_with) \((#\d+(?:\.#\d+)?)(?:, (:\d+))?\)$`)
	reCmp  = regexp.MustCompile(`^(#\d+) (=|<>) (:\d+)$`)
	reIn   = regexp.MustCompile(`^(#\d+) IN \((:\d+(?:, :\d+)*)\)$`)
)

// lookup resolves "#0" or "#0.#1" (a map member).
func lookup(it Item, path string, names map[string]string) (types.AttributeValue, bool) {
	p, c, nested := strings.Cut(path, ".")
	v, ok := it[names[p]]
	if !nested || !ok {
		return v, ok
	}
	mv, isMap := v.(*types.AttributeValueMemberM)
	if !isMap {
		return nil, false
	}
	v, ok = mv.Value[names[c]]
	return v, ok
}

// matching reports whether the opening parenthesis at 0 closes at the end.
func matching(s string) bool {
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return false
			}
		}
	}
	return true
}

// splitTop splits at the first AND/OR outside parentheses.
func splitTop(s string) (string, string, string, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ':
			if depth == 0 {
				for _, op := range []string{"AND", "OR"} {
					if strings.HasPrefix(s[i:], " "+op+" ") {
						return s[:i], op, s[i+len(op)+2:], true
					}
				}
			}
		}
	}
	return "", "", "", false
}

// applyUpdate applies "SET a = v, b = if_not_exists(b, v), m.k = v" and
// "ADD n v" clauses; it returns the new item and the names it changed.
func applyUpdate(old, key Item, expr string, names map[string]string, values map[string]types.AttributeValue) (Item, []string) {
	nu := clone(old)
	if nu == nil {
		nu = clone(key)
	}
	var changed []string
	for _, clause := range strings.Split(expr, "\n") {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		verb, rest, _ := strings.Cut(clause, " ")
		for _, part := range splitComma(rest) {
			switch verb {
			case "SET":
				lhs, rhs, _ := strings.Cut(part, " = ")
				var v types.AttributeValue
				if m := reIfNotExists.FindStringSubmatch(rhs); m != nil {
					if cur, ok := nu[names[m[1]]]; ok {
						v = cur
					} else {
						v = values[m[2]]
					}
				} else {
					v = values[rhs]
				}
				if p, c, ok := strings.Cut(lhs, "."); ok {
					mv, _ := nu[names[p]].(*types.AttributeValueMemberM)
					if mv == nil {
						panic("fake: SET on a missing map")
					}
					inner := clone(mv.Value)
					inner[names[c]] = v
					nu[names[p]] = &types.AttributeValueMemberM{Value: inner}
					changed = append(changed, names[p])
					continue
				}
				nu[names[lhs]] = v
				changed = append(changed, names[lhs])
			case "ADD":
				n, val, _ := strings.Cut(part, " ")
				sum := new(big.Rat)
				if cur, ok := nu[names[n]].(*types.AttributeValueMemberN); ok {
					sum.SetString(cur.Value)
				}
				d, _ := new(big.Rat).SetString(values[val].(*types.AttributeValueMemberN).Value)
				sum.Add(sum, d)
				nu[names[n]] = &types.AttributeValueMemberN{Value: sum.RatString()}
				changed = append(changed, names[n])
			case "REMOVE":
				delete(nu, names[part])
				changed = append(changed, names[part])
			default:
				panic("fake: unsupported update clause " + clause)
			}
		}
	}
	return nu, changed
}

var reIfNotExists = regexp.MustCompile(`^if_not_exists ?\((#\d+), (:\d+)\)$`)

func splitComma(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
