package partiql

import (
	"strings"
	"testing"
)

func TestParseAcceptsDynamoDBForms(t *testing.T) {
	for _, src := range []string{
		`SELECT * FROM "Music" WHERE Artist = 'Acme Band'`,
		`select OrderID, Total from "Orders" where OrderID in [1, 2, 3] order by OrderID desc`,
		`SELECT Devices.FireStick.DateWatched[0] FROM WatchList WHERE CustomerID= 'C1' AND MovieID= 'M1'`,
		`SELECT * FROM "TableName"."IndexName"`,
		`SELECT * FROM "Music" WHERE "Awards" IS MISSING`,
		`SELECT * FROM Music WHERE attribute_type("Artist", 'S')`,
		`SELECT/**/* FROM "t1x" -- the table` + "\nWHERE pk/* key */='comments' AND sk='1' --",
		`SELECT * FROM "t1x" WHERE pk = 'a';`,
		`SELECT * FROM "t1x" WHERE pk = 7.31e6 OR pk = .73e1 OR pk = -.73e1 OR pk = 731E+4`,
		`INSERT INTO "Music" value {'Artist' : 'Acme Band','SongTitle' : 'PartiQL Rocks'}`,
		`INSERT INTO tbl VALUE {'pk': ?, 's': <<'a', 'b'>>, 'l': [1, 'x', {'k': null}], 'b': true}`,
		`UPDATE "Music" SET AwardsWon=1 SET AwardDetail={'Grammys':[2020, 2018]} WHERE Artist='Acme Band' AND SongTitle='PartiQL Rocks' RETURNING ALL OLD *`,
		`UPDATE "Music" SET AwardDetail.Grammys =list_append(AwardDetail.Grammys,[2016]) WHERE Artist='Acme Band'`,
		`UPDATE "Music" REMOVE AwardDetail.Grammys[2] WHERE Artist='Acme Band'`,
		`UPDATE "Music" SET BandMembers =set_add(BandMembers, <<'newbandmember'>>) WHERE Artist='Acme Band'`,
		`UPDATE tbl SET a = 1, b = b - 1 REMOVE c, d WHERE pk = 'x' RETURNING MODIFIED NEW *`,
		`FROM "tbl" WHERE pk = 'x' SET c = 1`,
		`DELETE FROM "Music" WHERE "Artist" = 'Acme Band' AND "SongTitle" = 'PartiQL Rocks' RETURNING ALL OLD *`,
		`EXISTS(SELECT * FROM "Music" WHERE "Artist" = 'Acme Band' AND "SongTitle" = 'PartiQL Rocks' AND Awards IS NOT MISSING)`,
		`SELECT * FROM tbl WHERE pk = 'a' AND NOT sk BETWEEN 1 AND 2 AND x NOT IN (1, 2) AND y != 3 AND z IS NOT NULL`,
		`SELECT * FROM tbl WHERE pk = $1`,
	} {
		if _, err := Parse(src); err != nil {
			t.Errorf("Parse(%q): %v", src, err)
		}
	}
}

// The refusals of DynamoDB's parser, with the messages real DynamoDB gives
// (recorded by public conformance suites run against AWS).
func TestParseRefusals(t *testing.T) {
	const nwf = "Statement wasn't well formed, can't be processed: "
	for _, c := range []struct{ src, msg string }{
		{`SELECT * FROM "tbl" WHERE pk = 1 foo`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "tbl" WHERE pk = 1 e5`, nwf + "Unexpected token after expression"},
		{`INSERT INTO "tbl" VALUE {'pk': 970001} foo`, nwf + "Unexpected token after expression"},
		{`DELETE FROM "tbl" WHERE pk = 970003 ORDER BY pk`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "tbl" ORDER BY pk WHERE pk = 1`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "tbl" WHERE pk = 1)`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "tbl" WHERE pk = 'a'; SELECT * FROM "tbl"`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "tbl" WHERE pk = 1e2147483648`, nwf},
		{`SELECT * FROM "tbl" WHERE pk = 1.5e-2147483647`, nwf},
		{`SELECT * FROM "tbl" WHERE pk = 1 # note`, nwf},
		{`SELECT * FROM "tbl" WHERE pk = 1 /* note`, nwf},
		{`SELECT * FROM "tbl" WHERE pk = 'open`, nwf},
		{`SELECT * FROM "tbl" t WHERE pk = 'x'`, "Aliasing is not supported"},
		{`SELECT * FROM "tbl" AS t WHERE pk = 'x'`, "Aliasing is not supported"},
		{`UPDATE "tbl" t SET a = 3 WHERE pk = 'x'`, "Aliasing is not supported"},
		{`DELETE FROM "tbl" t WHERE pk = 'x'`, "Aliasing is not supported"},
		{`INSERT INTO "tbl" t VALUE {'pk': 'x'}`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "tbl" WHERE`, nwf + "Unexpected term"},
		{`SELECT * FROM "tbl" WHERE;`, nwf + "Unexpected term"},
		{`SELECT * FROM "tbl" WHERE NOT`, nwf + "Unexpected term"},
		{`SELECT * FROM "tbl" WHERE (`, nwf + "Unexpected term"},
		{`UPDATE "tbl" SET a = 1 WHERE`, nwf + "Unexpected term"},
		{`SELECT * FROM "tbl" WHERE pk = 'p1' AND`, nwf + "Missing right-hand side expression of infix operator"},
		{`SELECT * FROM "tbl" WHERE pk = 'p1' OR`, nwf + "Missing right-hand side expression of infix operator"},
		{`SELECT * FROM "tbl" WHERE ORDER BY pk`, nwf + "Unexpected keyword"},
		{`SELECT * FROM "tbl" WHERE pk = 'a' AND x IS FOO`, nwf + "Expected type name"},
		{`SELECT * FROM "tbl" WHERE IS NULL`, nwf + "Unexpected operator"},
		{`SELECT * FROM "tbl" WHERE pk = LIKE`, nwf + "Unexpected operator"},
		{`DELETE FROM`, nwf + "Expected identifier for simple path"},
		{`DELETE FROM;`, nwf + "Expected identifier for simple path"},
		{`DELETE FROM WHERE pk = 'a'`, nwf + "Expected identifier for simple path"},
		{`SELECT * FROM`, nwf + "Unexpected term"},
		{`SELECT * FROM "tbl" WHERE pk = 'a' AND attribute_exists(m.inner)`, nwf + "Invalid path dot component"},
		{`SELECT * FROM "tbl" WHERE pad = 'none'`, nwf + "Unexpected keyword"},
		{`FROM "tbl" SET c = 1 WHERE pk = 'x'`, nwf + "Unexpected token after expression"},
		{``, nwf + "Unexpected term"},
		{`x IS INT4`, "Unsupported operation: IsType"},
		{`SELECT a, * FROM "tbl"`, "Other attributes should not be present in the projection when '*' is used."},
		{`SELECT * FROM "tbl", "other"`, "Only select from a single table or index is supported."},
		{`SELECT * FROM "tbl"."idx"."more"`, "A path may contain at most 2 components in the FROM clause"},
		{`SELECT * FROM "tbl" LIMIT 1`, "Unsupported clause: LIMIT"},
		{`SELECT * FROM "tbl" WHERE pk = 'a' ORDER BY size(sk)`, "Argument to ORDER BY must be of type VariableReference. Type: NAry"},
		{`INSERT INTO "tbl" VALUE {'pk': 'a'} RETURNING ALL OLD *`, "RETURNING is not supported in INSERT"},
		{`INSERT INTO "tbl" VALUES ('a')`, `Unsupported operation: Inserting multiple items in a single statement is not supported, use "INSERT INTO tableName VALUE item" instead`},
		{`UPDATE "tbl" SET a = 1 WHERE pk = 'x' RETURNING ALL NEW`, "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"},
		{`UPDATE "tbl" SET a = 1 WHERE pk = 'x' RETURNING ALL NEW *, ALL OLD *`, "Invalid syntax with multiple returning elements in RETURNING clause"},
		{`SELECT * FROM "ab"`, "Table name should be within the length [3, 255] and only contain 'a-z', 'A-Z', '0-9', '-', '_', '.'."},
		{`SELECT l[-1] FROM "tbl" WHERE pk='index' AND sk='1'`, "List index is not within the allowable range; index: [-1] at 1:11:1"},
		{`SELECT l[2147483648] FROM "tbl" WHERE pk='index' AND sk='1'`, "List index is not within the allowable range; index: [2147483648] at 1:10:10"},
		{`SELECT attribute_exists(ss) FROM "tbl" WHERE pk = 'a'`, "Unexpected path component at 1:8:16"},
	} {
		_, err := Parse(c.src)
		wantMessage(t, c.src, err, c.msg)
	}
}

func TestParseReadsLiteralsAndPaths(t *testing.T) {
	st, err := Parse(`SELECT "a.b", m.k[1], l[0]['x'] FROM "tbl" WHERE n = - - 1 AND m = -/* c */-2.50 AND s = 'it''s'`)
	if err != nil {
		t.Fatal(err)
	}
	sel := st.(*Select)
	var cols []string
	for _, c := range sel.Columns {
		var parts []string
		for _, s := range c.Steps {
			if s.IsIndex {
				parts = append(parts, "["+string(rune('0'+s.Index))+"]")
			} else {
				parts = append(parts, s.Name)
			}
		}
		cols = append(cols, strings.Join(parts, "/"))
	}
	if got := strings.Join(cols, " "); got != "a.b m/k/[1] l/[0]/x" {
		t.Errorf("columns = %s", got)
	}
	cs := conjuncts(sel.Where, nil)
	if got := cs[0].(*BinaryExpr).R.(*LitExpr).Num; got != "1" {
		t.Errorf("- - 1 = %s, want 1", got)
	}
	if got := cs[1].(*BinaryExpr).R.(*LitExpr).Num; got != "2.50" {
		t.Errorf("- -2.50 = %s, want 2.50", got)
	}
	if got := cs[2].(*BinaryExpr).R.(*LitExpr).V.Str; got != "it's" {
		t.Errorf("'it''s' = %q", got)
	}
}

func TestParseCountsParameters(t *testing.T) {
	st, err := Parse(`UPDATE tbl SET a = ?, b = '?' WHERE pk = ? AND x IN [?, ?]`)
	if err != nil {
		t.Fatal(err)
	}
	if st.Params() != 4 {
		t.Errorf("Params() = %d, want 4 (a ? inside a string is text)", st.Params())
	}
}
