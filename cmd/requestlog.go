package cmd

import (
	"context"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adjl/adjl/schema"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// requestLog is --debug: one line on stderr per request the SDK client
// sends, whatever sent it (list, link, table create, reshard, verify):
//
//	debug: Query table=school index=GSI1 key='(GSI1PK = "CRS#math204") AND (begins_with (GSI1SK, "STU#"))' limit=26 latency=412µs capacity=0.5 attempts=1
//
// It is an SDK middleware in the Initialize step, so it sees each operation
// once, around serialisation, signing and every retry. It reads only the
// operation's input and output - never the HTTP request, so never an access
// key, session token or signature.
type requestLog struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	// keys are the table's key attributes, as the schema's layout names
	// them: what an item's key is, in the log.
	keys []string
}

// clientOption adds the log to a DynamoDB client.
func (l *requestLog) clientOption(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(middleware.InitializeMiddlewareFunc("adjl/debug", l.handle), middleware.After)
	})
}

func (l *requestLog) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	askCapacity(in.Parameters)
	start := l.now()
	out, md, err := next.HandleInitialize(ctx, in)
	elapsed := l.now().Sub(start)

	op := middleware.GetOperationName(ctx)
	if op == "" {
		op = strings.TrimSuffix(reflect.Indirect(reflect.ValueOf(in.Parameters)).Type().Name(), "Input")
	}
	fields := append([]string{op}, l.requestFields(in.Parameters)...)
	fields = append(fields, "latency="+elapsed.Round(time.Microsecond).String())
	if err == nil {
		if c, ok := capacityField(out.Result); ok {
			fields = append(fields, c)
		}
	}
	if res, ok := retry.GetAttemptResults(md); ok && len(res.Results) > 0 {
		fields = append(fields, fmt.Sprintf("attempts=%d", len(res.Results)))
		for i, r := range res.Results {
			if r.Err != nil && i < len(res.Results)-1 {
				fields = append(fields, fmt.Sprintf("retry%d=%s", i+1, logValue(firstLine(r.Err.Error()))))
			}
		}
	}
	if err != nil {
		fields = append(fields, "error="+logValue(firstLine(err.Error())))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, "debug: "+strings.Join(fields, " "))
	return out, md, err
}

// askCapacity makes a data request return its consumed capacity (TOTAL)
// when the command did not ask for it, so the log can show it.
func askCapacity(params any) {
	v := reflect.Indirect(reflect.ValueOf(params))
	if v.Kind() != reflect.Struct {
		return
	}
	f := v.FieldByName("ReturnConsumedCapacity")
	if f.IsValid() && f.CanSet() && f.String() == "" {
		f.SetString(string(types.ReturnConsumedCapacityTotal))
	}
}

// requestFields describe an operation's input: table, index, key condition
// or key (with the expression's names and values filled in), filter, limit,
// and the items of a transaction or batch.
func (l *requestLog) requestFields(params any) []string {
	var out []string
	switch in := params.(type) {
	case *dynamodb.TransactWriteItemsInput:
		var parts []string
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				parts = append(parts, "Put "+deref2(it.Put.TableName)+" "+l.keyText(it.Put.Item))
			case it.Update != nil:
				parts = append(parts, "Update "+deref2(it.Update.TableName)+" "+l.keyText(it.Update.Key))
			case it.Delete != nil:
				parts = append(parts, "Delete "+deref2(it.Delete.TableName)+" "+l.keyText(it.Delete.Key))
			case it.ConditionCheck != nil:
				parts = append(parts, "ConditionCheck "+deref2(it.ConditionCheck.TableName)+" "+l.keyText(it.ConditionCheck.Key))
			}
		}
		return []string{"items=" + logValue(strings.Join(parts, "; "))}
	case *dynamodb.BatchWriteItemInput:
		for _, t := range slices.Sorted(maps.Keys(in.RequestItems)) {
			out = append(out, fmt.Sprintf("table=%s writes=%d", t, len(in.RequestItems[t])))
		}
		return out
	case *dynamodb.BatchGetItemInput:
		for _, t := range slices.Sorted(maps.Keys(in.RequestItems)) {
			out = append(out, fmt.Sprintf("table=%s keys=%d", t, len(in.RequestItems[t].Keys)))
		}
		return out
	}
	v := reflect.Indirect(reflect.ValueOf(params))
	if v.Kind() != reflect.Struct {
		return nil
	}
	str := func(name string) string {
		if f := v.FieldByName(name); f.IsValid() && f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.String {
			return f.Elem().String()
		}
		return ""
	}
	var names map[string]string
	if f := v.FieldByName("ExpressionAttributeNames"); f.IsValid() {
		names, _ = f.Interface().(map[string]string)
	}
	var values map[string]types.AttributeValue
	if f := v.FieldByName("ExpressionAttributeValues"); f.IsValid() {
		values, _ = f.Interface().(map[string]types.AttributeValue)
	}
	if t := str("TableName"); t != "" {
		out = append(out, "table="+t)
	}
	if ix := str("IndexName"); ix != "" {
		out = append(out, "index="+ix)
	}
	if kc := str("KeyConditionExpression"); kc != "" {
		out = append(out, "key="+logValue(fillExpression(kc, names, values)))
	}
	if f := v.FieldByName("Key"); f.IsValid() {
		if key, ok := f.Interface().(map[string]types.AttributeValue); ok && len(key) > 0 {
			out = append(out, "key="+logValue(l.keyText(key)))
		}
	}
	if f := v.FieldByName("Item"); f.IsValid() {
		if item, ok := f.Interface().(map[string]types.AttributeValue); ok && len(item) > 0 {
			out = append(out, "key="+logValue(l.keyText(item)))
		}
	}
	for _, e := range []struct{ field, name string }{
		{"FilterExpression", "filter"}, {"ConditionExpression", "condition"}, {"UpdateExpression", "update"},
	} {
		// Trimmed: the SDK's expression builder ends an update with "\n".
		if x := strings.TrimSpace(str(e.field)); x != "" {
			out = append(out, e.name+"="+logValue(fillExpression(x, names, values)))
		}
	}
	if f := v.FieldByName("Limit"); f.IsValid() && f.Kind() == reflect.Pointer && !f.IsNil() {
		out = append(out, fmt.Sprintf("limit=%d", f.Elem().Int()))
	}
	if f := v.FieldByName("ExclusiveStartKey"); f.IsValid() && f.Kind() == reflect.Map && f.Len() > 0 {
		out = append(out, "from-cursor=true")
	}
	if f := v.FieldByName("ConsistentRead"); f.IsValid() && f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Bool() {
		out = append(out, "consistent=true")
	}
	return out
}

// fillExpression writes an expression with its placeholders (#0, :1)
// replaced by the attribute names and values they stand for.
func fillExpression(expr string, names map[string]string, values map[string]types.AttributeValue) string {
	var pairs [][2]string
	for k, n := range names {
		pairs = append(pairs, [2]string{k, n})
	}
	for k, v := range values {
		pairs = append(pairs, [2]string{k, avText(v)})
	}
	// Longer placeholders first, so :10 is not read as :1 followed by 0.
	slices.SortFunc(pairs, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	var args []string
	for _, p := range pairs {
		args = append(args, p[0], p[1])
	}
	return strings.NewReplacer(args...).Replace(expr)
}

// keyText is the table key of an item or key, as PK="...",SK="...".
func (l *requestLog) keyText(item map[string]types.AttributeValue) string {
	keys := l.keys
	if len(keys) == 0 {
		keys = []string{schema.DefaultPK, schema.DefaultSK}
	}
	var parts []string
	for _, n := range keys {
		if v, ok := item[n]; ok {
			parts = append(parts, n+"="+avText(v))
		}
	}
	return strings.Join(parts, ",")
}

// avText is an attribute value as the log shows it: strings quoted,
// numbers bare, other kinds by their type.
func avText(v types.AttributeValue) string {
	switch t := v.(type) {
	case *types.AttributeValueMemberS:
		return strconv.Quote(t.Value)
	case *types.AttributeValueMemberN:
		return t.Value
	case *types.AttributeValueMemberBOOL:
		return strconv.FormatBool(t.Value)
	case *types.AttributeValueMemberNULL:
		return "null"
	case *types.AttributeValueMemberSS:
		return fmt.Sprintf("<string set of %d>", len(t.Value))
	case *types.AttributeValueMemberNS:
		return fmt.Sprintf("<number set of %d>", len(t.Value))
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("<%d bytes>", len(t.Value))
	case *types.AttributeValueMemberL:
		return fmt.Sprintf("<list of %d>", len(t.Value))
	case *types.AttributeValueMemberM:
		return fmt.Sprintf("<map of %d>", len(t.Value))
	}
	return "<value>"
}

// capacityField sums the consumed capacity an output reports.
func capacityField(result any) (string, bool) {
	v := reflect.Indirect(reflect.ValueOf(result))
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return "", false
	}
	f := v.FieldByName("ConsumedCapacity")
	if !f.IsValid() {
		return "", false
	}
	var list []types.ConsumedCapacity
	switch c := f.Interface().(type) {
	case *types.ConsumedCapacity:
		if c != nil {
			list = append(list, *c)
		}
	case []types.ConsumedCapacity:
		list = c
	}
	if len(list) == 0 {
		return "capacity=unreported", true
	}
	var total float64
	for _, c := range list {
		total += deref(c.CapacityUnits)
	}
	return "capacity=" + strconv.FormatFloat(total, 'f', -1, 64), true
}

// logValue quotes a value holding a space, a quote, "=" or a control
// character: in single quotes when that needs no escapes (key conditions
// hold double-quoted values), else as a Go string.
func logValue(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == '\'' || r == '=' || needsEscape(r) }) {
		return s
	}
	if !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == '\'' || r == '\\' || needsEscape(r) }) {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func deref2(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
