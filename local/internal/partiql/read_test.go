package partiql

import (
	"strconv"
	"strings"
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
	"github.com/adjl/adjl/local/internal/expr"
)

// describe renders a read plan for comparison: "scan[filter]" or the
// branches "pk=...:sortop value[filter]" in read order.
func describe(t *testing.T, rd *Read) string {
	t.Helper()
	e := env(t, rd.Placeholders)
	filter := func(s string) string {
		if s == "" {
			return ""
		}
		if _, err := expr.ParseFilter(s, e); err != nil {
			t.Errorf("filter %q does not parse: %v", s, err)
		}
		return "[" + expand(s, rd.Placeholders) + "]"
	}
	if rd.Scan {
		return "scan" + filter(rd.Filter)
	}
	var parts []string
	for _, b := range rd.Branches {
		s := "pk=" + show(b.Hash)
		switch b.SortOp {
		case "":
		case "BETWEEN":
			s += ":sk BETWEEN " + show(b.Sort[0]) + " AND " + show(b.Sort[1])
		case "begins_with":
			s += ":begins_with " + show(b.Sort[0])
		default:
			s += ":sk" + b.SortOp + show(b.Sort[0])
		}
		parts = append(parts, s+filter(b.Filter))
	}
	if !rd.Forward {
		parts = append(parts, "desc")
	}
	return strings.Join(parts, " | ")
}

// wantPlan fails unless src plans on sc into the read that describe
// renders as plan.
func wantPlan(t *testing.T, src string, sc Schema, plan string) {
	t.Helper()
	rd, err := parseRead(t, src, sc)
	if err != nil {
		t.Errorf("%s: %v", src, err)
		return
	}
	if got := describe(t, rd); got != plan {
		t.Errorf("%s:\n got  %s\n want %s", src, got, plan)
	}
}

// A SELECT is a Query when every alternative of its WHERE fixes the
// partition key by equality, a Scan otherwise, as DynamoDB's planner
// decides (recorded against AWS by public conformance suites).
func TestPlanSelectQueryOrScan(t *testing.T) {
	for _, c := range []struct{ where, plan string }{
		{``, "scan"},
		{`pk = 'a'`, "pk='a'"},
		{`'a' = pk AND sk >= 3`, "pk='a':sk>=3"},
		{`pk = 'a' AND 3 > sk`, "pk='a':sk<3"},
		{`pk = 'a' AND sk BETWEEN 1 AND 5 AND x = 1`, "pk='a':sk BETWEEN 1 AND 5[x = 1]"},
		{`pk = 'a' AND begins_with(sk, 'x')`, "scan[pk = 'a' AND begins_with(sk, 'x')]"},
		{`pk = 'a' AND pk = 'a'`, "pk='a'"},
		{`pk = 'a' AND pk = 'b'`, "scan[pk = 'a' AND pk = 'b']"},
		{`pk = 'a' OR pk = 'b'`, "pk='a' | pk='b'"},
		{`pk IN ['a', 'b'] AND x = 1`, "pk='a'[x = 1] | pk='b'[x = 1]"},
		{`pk = 'a' AND sk IN [1, 2]`, "pk='a':sk=1 | pk='a':sk=2"},
		{`pk = 'a' AND (sk < 1 OR sk > 1 OR sk = 1)`, "pk='a':sk<1 | pk='a':sk>1 | pk='a':sk=1"},
		{`(pk = 'a' AND x = 1) OR (pk = 'b' AND y = 2)`, "pk='a'[x = 1] | pk='b'[y = 2]"},
		{`pk > 'a'`, "scan[pk > 'a']"},
		{`pk = 'a' OR x = 1`, "scan[pk = 'a' OR x = 1]"},
		{`pk = 'a' AND sk <> 1`, "scan[pk = 'a' AND sk <> 1]"},
		{`pk = 'a' AND NOT sk = 1`, "scan[pk = 'a' AND NOT sk = 1]"},
		{`pk = 'a' AND NOT sk IN [1, 3]`, "scan[pk = 'a' AND NOT sk IN (1, 3)]"},
		{`pk = 'a' AND sk = 1 AND sk > 0`, "scan[pk = 'a' AND sk = 1 AND sk > 0]"},
		{`pk = 'a' AND attribute_exists(pk)`, "scan[pk = 'a' AND attribute_exists(pk)]"},
		{`pk = 'a' AND size(sk) > 1`, "scan[pk = 'a' AND size(sk) > 1]"},
		{`pk = 'a' AND sk = other`, "pk='a'[sk = other]"},
		{`x = 1`, "scan[x = 1]"},
	} {
		src := `SELECT * FROM tbl`
		if c.where != "" {
			src += ` WHERE ` + c.where
		}
		wantPlan(t, src, composite, c.plan)
	}
}

// begins_with on the sort key is a key condition of a string sort key.
func TestPlanSelectBeginsWith(t *testing.T) {
	sc := Schema{Hash: "pk", Range: "sk", HashKind: attr.S, RangeKind: attr.S}
	wantPlan(t, `SELECT * FROM tbl WHERE pk = 'a' AND begins_with(sk, 'x#')`, sc, "pk='a':begins_with 'x#'")
}

func TestPlanSelectOrderBy(t *testing.T) {
	for _, c := range []struct{ src, plan string }{
		{`SELECT * FROM tbl WHERE pk = 'a' ORDER BY sk DESC`, "pk='a' | desc"},
		{`SELECT * FROM tbl WHERE pk = 'a' ORDER BY sk`, "pk='a'"},
		{`SELECT * FROM tbl WHERE pk IN ['c', 'a', 'b'] ORDER BY pk DESC`, "pk='c' | pk='b' | pk='a'"},
		{`SELECT * FROM tbl WHERE pk IN ['c', 'a'] ORDER BY pk, sk DESC`, "pk='a' | pk='c' | desc"},
		{`SELECT * FROM tbl WHERE pk = 'a' AND (sk > 5 OR sk < 2) ORDER BY sk`, "pk='a':sk<2 | pk='a':sk>5"},
	} {
		wantPlan(t, c.src, composite, c.plan)
	}
}

func TestPlanSelectRefusals(t *testing.T) {
	overlap := "Overlapping conditions with range keys are not supported in where clause"
	for _, c := range []struct{ src, msg string }{
		{`SELECT sk FROM tbl WHERE pk IN ['r','r']`, overlap},
		{`SELECT sk FROM tbl WHERE pk='r' OR pk='r'`, overlap},
		{`SELECT sk FROM tbl WHERE pk='r' AND (sk > 0 OR sk < 5)`, overlap},
		{`SELECT sk FROM tbl WHERE pk='r' AND (sk=1 OR flag='two')`, overlap},
		{`SELECT sk FROM tbl WHERE (pk='r' AND flag='one') OR (pk='r' AND flag='two')`, overlap},
		{`SELECT sk FROM tbl WHERE pk = 1 OR pk = 'r'`, "Key attribute's data type should match its data type in table's schema: Key pk"},
		{`SELECT sk FROM tbl WHERE pk = 'r' AND sk IN [1, '2']`, "Key attribute's data type should match its data type in table's schema: Key sk"},
		{`SELECT sk FROM tbl WHERE pk IN [` + repeatValues(51) + `]`, "Too many decomposed read operations for a given query."},
		{`SELECT sk FROM tbl WHERE pk = 'r' AND sk IN [` + repeatNumbers(51) + `]`, "Too many decomposed read operations for a given query."},
		{`SELECT * FROM tbl ORDER BY sk`, "Must have WHERE clause in the statement when using ORDER BY clause."},
		{`SELECT * FROM tbl WHERE x = 1 ORDER BY sk`, "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."},
		{`SELECT * FROM tbl WHERE pk = 'a' ORDER BY x`, "Variable reference x in ORDER BY clause must be part of the primary key"},
		{`SELECT * FROM tbl WHERE pk IN ['a', 'b'] ORDER BY sk`, "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause."},
		{`SELECT z, m.z FROM tbl`, "Duplicate identifiers in select clause: z"},
		{`SELECT * FROM tbl WHERE pk = ?`, "Number of parameters in request and statement don't match."},
		{`SELECT * FROM tbl WHERE x IN pk`, "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"},
		{`SELECT * FROM tbl WHERE x IN []`, "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"},
		{`SELECT * FROM tbl WHERE pk = 'a' AND attribute_exists(n) > false`, "Incorrect operand type for operator or function; operator or function: >, operand type: BOOL"},
		{`SELECT * FROM tbl WHERE set_add(ss, <<'x'>>) = ss`, "Unrecognized function: set_add at 1:25:7"},
		{`SELECT * FROM tbl WHERE x`, "WHERE clause must contain an expression that resolves to a boolean"},
	} {
		_, err := parseRead(t, c.src, composite)
		wantMessage(t, c.src, err, c.msg)
	}
}

func repeatValues(n int) string {
	var vs []string
	for i := range n {
		vs = append(vs, "'v"+string(rune('a'+i%26))+string(rune('a'+i/26))+"'")
	}
	return strings.Join(vs, ",")
}

func repeatNumbers(n int) string {
	var vs []string
	for i := range n {
		vs = append(vs, strconv.Itoa(i))
	}
	return strings.Join(vs, ",")
}

// Fifty key ranges are allowed, and alternatives without the partition key
// make the SELECT a Scan however many there are.
func TestPlanSelectBranchLimit(t *testing.T) {
	rd, err := parseRead(t, `SELECT * FROM tbl WHERE pk IN [`+repeatValues(50)+`] AND flag IN [`+repeatValues(100)+`]`, composite)
	if err != nil || rd.Scan || len(rd.Branches) != 50 {
		t.Errorf("50 partitions: err %v, scan %v", err, rd != nil && rd.Scan)
	}
	rd, err = parseRead(t, `SELECT * FROM tbl WHERE pk IN [`+repeatValues(51)+`] OR flag = 'one'`, composite)
	if err != nil || !rd.Scan {
		t.Errorf("51 partitions or a filter: err %v, want a Scan", err)
	}
}

func TestPlanSelectColumns(t *testing.T) {
	rd, err := parseRead(t, `SELECT pk, m.k[1], l[0], "a.b", m['x y'] FROM tbl`, composite)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range rd.Columns {
		names = append(names, c.Name+"="+c.Path.String())
	}
	if got := strings.Join(names, " "); got != "pk=[pk] k[1]=[m, k, [1]] l[0]=[l, [0]] a.b=[a.b] x y=[m, x y]" {
		t.Errorf("columns = %s", got)
	}
}

func TestReadKey(t *testing.T) {
	for _, c := range []struct {
		where string
		key   attr.Item
	}{
		{`pk = 'a' AND sk = 1`, attr.Item{"pk": attr.String("a"), "sk": num("1")}},
		{`pk IN ['a'] AND sk IN [1]`, attr.Item{"pk": attr.String("a"), "sk": num("1")}},
		{`(pk IN ['a']) AND pk = 'a' AND sk = 1`, attr.Item{"pk": attr.String("a"), "sk": num("1")}},
		{`pk = 'a'`, nil},
		{`pk = 'a' AND sk = 1 AND flag = 'x'`, nil},
		{`pk IN ['b'] AND pk = 'a' AND sk = 1`, nil},
		{`pk = 'a' AND sk > 1`, nil},
	} {
		st, err := Parse(`SELECT * FROM tbl WHERE ` + c.where)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := PlanSelect(st.(*Select), composite, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		key, ok := rd.Key(composite)
		if ok != (c.key != nil) || ok && !attr.EqualItems(key, c.key) {
			t.Errorf("%s: key %v %v, want %v", c.where, key, ok, c.key)
		}
	}
}
