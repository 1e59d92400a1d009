package cmd

import "testing"

func TestNextCommand(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"members", "CRS#math204", "--limit", "10"}, "adjl members CRS#math204 --limit 10 --cursor tok"},
		{[]string{"members", "CRS#math204", "--cursor", "old", "--limit", "10"}, "adjl members CRS#math204 --limit 10 --cursor tok"},
		{[]string{"members", "--cursor=old", "CRS#math204"}, "adjl members CRS#math204 --cursor tok"},
		{[]string{"--schema", "my schema.yaml", "list", "enrollment", "a91"}, "adjl --schema 'my schema.yaml' list enrollment a91 --cursor tok"},
		{[]string{"members", "--", "CRS#x"}, "adjl members --cursor tok -- CRS#x"},
	}
	for _, c := range cases {
		if got := nextCommand(c.args, "tok"); got != c.want {
			t.Errorf("nextCommand(%q)\n got %s\nwant %s", c.args, got, c.want)
		}
	}
	if got := nextCommand([]string{"courses", "a"}, "a'b"); got != `adjl courses a --cursor 'a'\''b'` {
		t.Errorf("cursor quoting: %s", got)
	}
}
