package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVerifyExamplesInMemory(t *testing.T) {
	isolate(t)
	paths := map[string]string{"school": example(t, "school.yaml"), "social": example(t, "social.yaml")}
	for _, name := range []string{"school", "social"} {
		dir := t.TempDir()
		r := adjl(t, runOpts{dir: dir}, "--schema", paths[name], "verify")
		if r.code != 0 || !strings.Contains(r.err, "verify: 9 patterns on scratch table "+name+"-verify-") || !strings.Contains(r.err, "all passed") {
			t.Errorf("%s: exit %d\n%s%s", name, r.code, r.out, r.err)
		}
		if strings.Count(r.out, "\tok\n") != 9 {
			t.Errorf("%s: rows:\n%s", name, r.out)
		}
		// The default local backend is a throw-away engine: no data file.
		if r := adjl(t, runOpts{dir: dir}, "--schema", paths[name], "table", "describe"); r.code != ExitTable {
			t.Errorf("%s: verify left a table in the data file: exit %d %s", name, r.code, r.out)
		}
	}
}

func TestVerifyJSONAndFailure(t *testing.T) {
	isolate(t)
	school := example(t, "school.yaml")
	r := adjl(t, runOpts{}, "--schema", school, "verify", "-o", "json")
	var doc struct {
		Failed  int `json:"failed"`
		Results []struct {
			Pattern string   `json:"pattern"`
			OK      bool     `json:"ok"`
			Sent    []string `json:"sent"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil || r.code != 0 {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.out)
	}
	if doc.Failed != 0 || len(doc.Results) != 9 || doc.Results[0].Pattern != "student: get" || doc.Results[0].Sent[0] != "GetItem" {
		t.Errorf("json: %+v", doc)
	}
	// A backend that answers nothing fails verify before any pattern runs.
	r = adjl(t, runOpts{api: newFailingAPI(apiError("ValidationException", "no"))}, "--schema", school, "verify")
	if r.code == 0 || !strings.Contains(r.err, "create scratch table school-verify-") {
		t.Errorf("failing backend: exit %d %s", r.code, r.err)
	}
	if r := adjl(t, runOpts{}, "--schema", school, "verify", "--explain"); r.code != ExitUsage {
		t.Errorf("--explain: exit %d", r.code)
	}
}
