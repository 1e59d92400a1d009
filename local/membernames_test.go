package local

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestMemberNamesAreCaseSensitive: a member whose name differs from
// DynamoDB's only in case is ignored, as DynamoDB ignores it: the request is
// answered as the same request without that member.
func TestMemberNamesAreCaseSensitive(t *testing.T) {
	e := openMem(t)
	call := func(target, body string) string {
		t.Helper()
		status, out := postRaw(t, e, target, body)
		return strconv.Itoa(status) + " " + string(out)
	}
	const create = `"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"`
	for _, c := range []struct {
		target, body, without string
	}{
		{"DescribeTable", `{"tableName":"ttt"}`, `{}`},
		{"CreateTable", `{"TableName":"ttt","keySchema":[{"AttributeName":"pk","KeyType":"HASH"}],` + create + `}`, `{"TableName":"ttt",` + create + `}`},
		{"ListTables", `{"limit":0}`, `{}`},
		{"ListTables", `{"limit":0,"Limit":1}`, `{"Limit":1}`},
	} {
		got, want := call(c.target, c.body), call(c.target, c.without)
		if got != want {
			t.Errorf("%s %s:\n got %s\nwant %s (the answer without the member)", c.target, c.body, got, want)
		}
	}
	if got := call("ListTables", `{"Limit":0}`); !strings.Contains(got, "Value '0' at 'limit' failed to satisfy constraint") {
		t.Errorf("the exact name is read: %s", got)
	}
}

func TestExactMembersKeepsOtherBodies(t *testing.T) {
	var in tableNameIn
	for _, body := range []string{``, `[]`, `{`, `{"TableName":"t","Unknown":{"a":[1]}}`, `null`,
		`{"tablename":{"a":1}`, `{"tablename":"x"} {}`, `{"tablename":"x"}]`} {
		if got := string(exactMembers([]byte(body), &in)); got != body {
			t.Errorf("%q became %q", body, got)
		}
	}
	if got := string(exactMembers([]byte(`{"tablename":"x", "TableName" : "t"}`), &in)); got != `{"TableName":"t"}` {
		t.Errorf("got %s", got)
	}
}

// PageLimit is exported so that encoding/json can allocate it when embedded
// as a pointer.
type PageLimit struct{ Limit int }

type pagedTableIn struct {
	*PageLimit
	TableName string
}

func TestExactMembersReadsEmbeddedStructPointers(t *testing.T) {
	if got := membersOf(reflect.TypeOf(&pagedTableIn{})); !slices.Equal(got, memberSet{"Limit", "TableName"}) {
		t.Errorf("members %q, want Limit and TableName", got)
	}
	var in pagedTableIn
	if err := decodeRequest([]byte(`{"limit":3,"TableName":"t"}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.PageLimit != nil {
		t.Errorf("limit was read as Limit: %+v", *in.PageLimit)
	}
}
