package cmd

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/adjl/adjl/internal/english"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// capacityPrinter reports consumed capacity per request on stderr, so it
// never mixes with data a script reads from stdout, and the total over the
// command's requests at the end.
type capacityPrinter struct {
	w                  io.Writer
	requests, reported int
	total, read, write float64
}

func (c *capacityPrinter) report(op string, cc []types.ConsumedCapacity) {
	c.requests++
	if len(cc) == 0 {
		fmt.Fprintf(c.w, "capacity: %s: not reported by the backend\n", op)
		return
	}
	c.reported++
	for _, x := range cc {
		c.total += deref(x.CapacityUnits)
		c.read += deref(x.ReadCapacityUnits)
		c.write += deref(x.WriteCapacityUnits)
		fmt.Fprintf(c.w, "capacity: %s\n", formatCapacity(op, x))
	}
}

// printTotal prints the sum over every request the command sent.
func (c *capacityPrinter) printTotal() {
	if c.requests == 0 {
		fmt.Fprintln(c.w, "capacity: total: 0 (no request sent)")
		return
	}
	line := fmt.Sprintf("capacity: total: %s", units(&c.total))
	var rw []string
	if c.read != 0 {
		rw = append(rw, "read "+units(&c.read))
	}
	if c.write != 0 {
		rw = append(rw, "write "+units(&c.write))
	}
	if len(rw) > 0 {
		line += " (" + strings.Join(rw, ", ") + ")"
	}
	line += fmt.Sprintf(" over %d %s", c.requests, english.Plural(c.requests, "request", "requests"))
	if c.reported < c.requests {
		line += fmt.Sprintf(", %d not reported by the backend", c.requests-c.reported)
	}
	fmt.Fprintln(c.w, line)
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
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
