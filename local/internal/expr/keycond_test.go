package expr

import (
	"testing"

	"github.com/adjl/adjl/local/internal/attr"
)

var keyValues = map[string]string{":p": `{"S":"STU#a91"}`, ":e": `{"S":"ENROLL#"}`, ":a": `{"N":"1"}`, ":b": `{"N":"5"}`}

func TestKeyConditionParse(t *testing.T) {
	cases := []struct {
		expr    string
		sortOp  KeyOp
		nValues int
	}{
		{"PK = :p", "", 0},
		{"PK = :p AND begins_with(SK, :e)", BEGINSWITH, 1},
		{"begins_with(SK, :e) AND PK = :p", BEGINSWITH, 1},
		{"PK = :p AND SK BETWEEN :a AND :b", BETWEEN, 2},
		{"PK = :p AND SK < :b", LT, 1},
		{"PK = :p AND :b < SK", GT, 1},
		{"PK = :p AND :b >= SK", LE, 1},
		{"(PK = :p) AND (SK >= :a)", GE, 1},
		{"#pk = :p AND #sk = :a", EQ, 1},
	}
	for _, c := range cases {
		e := env(t, map[string]string{"#pk": "PK", "#sk": "SK"}, keyValues)
		kc, err := ParseKeyCondition(c.expr, e)
		if err != nil {
			t.Errorf("ParseKeyCondition(%q): %v", c.expr, err)
			continue
		}
		if err := kc.Bind("PK", "SK"); err != nil {
			t.Errorf("Bind(%q): %v", c.expr, err)
			continue
		}
		if kc.Partition.Name != "PK" || kc.Partition.Op != EQ || !attr.Equal(kc.Partition.Values[0], attr.String("STU#a91")) {
			t.Errorf("%q: partition = %+v", c.expr, kc.Partition)
		}
		if c.sortOp == "" {
			if kc.Sort != nil {
				t.Errorf("%q: unexpected sort condition %+v", c.expr, kc.Sort)
			}
			continue
		}
		if kc.Sort == nil || kc.Sort.Name != "SK" || kc.Sort.Op != c.sortOp || len(kc.Sort.Values) != c.nValues {
			t.Errorf("%q: sort = %+v, want op %s with %d values", c.expr, kc.Sort, c.sortOp, c.nValues)
		}
	}
}

func TestKeyConditionErrors(t *testing.T) {
	cases := []parseErrCase{
		{"PK = :p OR SK = :a", "Invalid operator used in KeyConditionExpression: OR"},
		{"PK = :p AND NOT SK = :a", "Invalid operator used in KeyConditionExpression: NOT"},
		{"PK IN (:p)", "Invalid operator used in KeyConditionExpression: IN"},
		{"PK <> :p", "Invalid operator used in KeyConditionExpression: <>"},
		{"PK = :p AND attribute_exists(SK)", "Invalid operator used in KeyConditionExpression: attribute_exists"},
		{"PK = :p AND contains(SK, :e)", "Invalid operator used in KeyConditionExpression: contains"},
		{"PK = :p AND size(SK) > :a", "KeyConditionExpressions cannot contain nested operations"},
		{"PK = :p AND PK = :p", "KeyConditionExpressions must only contain one condition per key"},
		{"PK = :p AND a.b = :a", "KeyConditionExpressions cannot have conditions on nested attributes"},
		{"PK = SK", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"},
		{":p = :p", "Invalid condition in KeyConditionExpression: No key attribute specified"},
		{"PK = :p AND begins_with(:e, SK)", "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"},
		{"status = :p", "Invalid KeyConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"PK = :p AND", `Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
	}
	wantParseErrors(t, "ParseKeyCondition", func(expr string) error {
		_, err := ParseKeyCondition(expr, env(t, nil, keyValues))
		return err
	}, cases)
}

func TestKeyConditionBind(t *testing.T) {
	cases := []struct{ expr, pk, sk, want string }{
		{"SK = :a", "PK", "SK", "Query condition missed key schema element: PK"},
		{"PK = :p AND grade = :a", "PK", "SK", "Query condition missed key schema element: SK"},
		{"PK < :p", "PK", "SK", "Query key condition not supported"},
		{"PK = :p AND SK = :a", "PK", "", "Query key condition not supported"},
		{"PK = :p AND SK = :a", "PK", "SK", ""},
	}
	for _, c := range cases {
		kc, err := ParseKeyCondition(c.expr, env(t, nil, keyValues))
		if err != nil {
			t.Errorf("ParseKeyCondition(%q): %v", c.expr, err)
			continue
		}
		if got := errMsg(kc.Bind(c.pk, c.sk)); got != c.want {
			t.Errorf("Bind(%q, %s, %s) = %q, want %q", c.expr, c.pk, c.sk, got, c.want)
		}
	}
}
