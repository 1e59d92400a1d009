package cmd

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// capacityPrinter reports consumed capacity per operation on stderr, so it
// never mixes with data a script reads from stdout.
type capacityPrinter struct{ w io.Writer }

func (c capacityPrinter) report(op string, cc []types.ConsumedCapacity) {
	if len(cc) == 0 {
		fmt.Fprintf(c.w, "capacity: %s: not reported by the backend\n", op)
		return
	}
	for _, x := range cc {
		fmt.Fprintf(c.w, "capacity: %s\n", formatCapacity(op, x))
	}
}

func formatCapacity(op string, x types.ConsumedCapacity) string {
	var b strings.Builder
	b.WriteString(op)
	if x.TableName != nil {
		b.WriteString(" " + *x.TableName)
	}
	b.WriteString(": " + units(x.CapacityUnits))
	var rw []string
	if x.ReadCapacityUnits != nil {
		rw = append(rw, "read "+units(x.ReadCapacityUnits))
	}
	if x.WriteCapacityUnits != nil {
		rw = append(rw, "write "+units(x.WriteCapacityUnits))
	}
	if len(rw) > 0 {
		b.WriteString(" (" + strings.Join(rw, ", ") + ")")
	}
	var parts []string
	if x.Table != nil && x.Table.CapacityUnits != nil {
		parts = append(parts, "table "+units(x.Table.CapacityUnits))
	}
	names := make([]string, 0, len(x.GlobalSecondaryIndexes))
	for n := range x.GlobalSecondaryIndexes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		parts = append(parts, n+" "+units(x.GlobalSecondaryIndexes[n].CapacityUnits))
	}
	if len(parts) > 0 {
		b.WriteString("; " + strings.Join(parts, ", "))
	}
	return b.String()
}

func units(f *float64) string {
	if f == nil {
		return "0"
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}
