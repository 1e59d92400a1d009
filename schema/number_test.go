package schema

import "testing"

func TestNumbersWriteAsJSONLiterals(t *testing.T) {
	for in, want := range map[string]string{"3.": "3", "+3": "3", ".5": "0.5", "-.5": "-0.5", "007": "7", "-00.10e+3": "-0.10e+3", "0": "0", "1.e5": "1e5", "12": "12"} {
		if got := Number(in).Literal(); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}
